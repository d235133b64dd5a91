package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/access"
)

// accessGuard builds the HTTP endpoint's access control from the flags, or nil when none is
// asked for.
func (f *flags) accessGuard(log *slog.Logger) (*access.Guard, error) {
	var cfg access.Config
	cfg.Logger = log
	if f.tokens != "" {
		toks, err := access.LoadTokens(f.tokens, log)
		if err != nil {
			return nil, fmt.Errorf("--tokens: %w", err)
		}
		if toks.Len() == 0 {
			log.Warn("the token file holds no token yet: no request gets in until one is added (holler token add NAME --tier standard --file " + f.tokens + ")")
		}
		cfg.Tokens = toks
	}
	oauthSet := f.oauthIssuer != "" || f.oauthAudience != "" || len(f.oauthScopeTier.Values()) > 0
	if oauthSet {
		if f.oauthIssuer == "" || f.oauthAudience == "" || len(f.oauthScopeTier.Values()) == 0 {
			return nil, errors.New("OAuth needs all of --oauth-issuer (the authorization server), --oauth-audience (this endpoint's URL, such as https://holler.example.com/mcp) " +
				"and --oauth-scope-tier (which scope grants which tier, such as hoot=standard)")
		}
		tiers, err := parseScopeTiers(f.oauthScopeTier.Values())
		if err != nil {
			return nil, err
		}
		o, err := access.NewOAuth(access.OAuthConfig{Issuer: f.oauthIssuer, Audience: f.oauthAudience, ScopeTiers: tiers})
		if err != nil {
			return nil, err
		}
		cfg.OAuth = o
	}
	if cfg.Tokens == nil && cfg.OAuth == nil {
		return nil, nil
	}
	return access.NewGuard(cfg)
}

// parseScopeTiers reads --oauth-scope-tier values, scope=tier each.
func parseScopeTiers(values []string) (map[string]hootv1.Tier, error) {
	out := make(map[string]hootv1.Tier, len(values))
	for _, v := range values {
		scope, word, ok := strings.Cut(v, "=")
		tier, tierOK := access.ParseTier(word)
		if !ok || scope == "" || !tierOK {
			return nil, fmt.Errorf("--oauth-scope-tier %q: want scope=tier, such as hoot=standard or hoot.admin=admin", v)
		}
		if prev, dup := out[scope]; dup && prev != tier {
			return nil, fmt.Errorf("--oauth-scope-tier: scope %q is given two tiers", scope)
		}
		out[scope] = tier
	}
	return out, nil
}

const tokenUsage = `Usage: holler token add NAME --tier TIER --file PATH

Makes a random bearer token named NAME (letters, digits and ._@-) that allows
tools up to TIER (basic, standard, admin or operator), prints it once, and appends its
SHA-256 hash to the token file PATH, made with mode 0600 if it does not exist.
The token itself is stored nowhere: give it to its holder now. A running
holler started with --tokens PATH takes it within a second. To withdraw a
token, delete its line from the file.

Flags:
`

// tokenCommand runs holler token.
func tokenCommand(args []string, out io.Writer) error {
	if len(args) == 0 || args[0] != "add" {
		fmt.Fprint(out, tokenUsage)
		return errors.New(`name the subcommand: holler token add NAME --tier standard --file PATH`)
	}
	args = args[1:]
	fs := flag.NewFlagSet("holler token add", flag.ContinueOnError)
	fs.SetOutput(out)
	tier := fs.String("tier", "standard", "the highest tool `tier` the token allows: basic, standard, admin or operator")
	file := fs.String("file", "", "the token `file` to append to (the --tokens of holler serve)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), tokenUsage); fs.PrintDefaults() }
	// The name may come before the flags, as the usage line shows.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; see holler token add --help", fs.Arg(0))
	}
	if name == "" {
		return errors.New("name the token's holder: holler token add NAME --tier standard --file PATH")
	}
	if *file == "" {
		return errors.New("--file: name the token file, such as --file ~/.config/holler/tokens (holler serve --tokens takes the same file)")
	}
	t, ok := access.ParseTier(*tier)
	if !ok {
		return fmt.Errorf("--tier %q: want basic, standard, admin or operator", *tier)
	}
	token, err := access.AddToken(*file, name, t)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s\n\nThis is the token of %s (tier %s). It is shown only now: give it to its holder, who sends it as\n"+
		"  Authorization: Bearer %s\nThe file %s holds its hash; holler serve --tokens %s takes it.\n", token, name, access.TierWord(t), token, *file, *file)
	return nil
}

// allowedHosts returns --allow-hosts, with the host of --oauth-audience: the endpoint's own
// canonical URL names a host its clients use.
func (f *flags) allowedHosts() []string {
	hosts := splitList(f.allowHosts)
	if u, err := url.Parse(f.oauthAudience); err == nil && u.Host != "" {
		hosts = append(hosts, u.Host)
	}
	return hosts
}

// minMetricsToken is the shortest metrics token taken: a guessable one would guard nothing.
const minMetricsToken = 16

// readMetricsToken reads the token of --metrics-token-file, or "" when none is named.
func readMetricsToken(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--metrics-token-file: %w", err)
	}
	// Trailing space and newlines are not part of the token: an editor or echo adds them.
	token := strings.TrimSpace(string(b))
	if len(token) < minMetricsToken {
		return "", fmt.Errorf("--metrics-token-file %s: the token has %d characters and needs at least %d (openssl rand -hex 32 > %s makes one)", path, len(token), minMetricsToken, path)
	}
	if _, reason, ok := access.BearerToken("Bearer " + token); !ok {
		return "", fmt.Errorf("--metrics-token-file %s: %s", path, reason)
	}
	return token, nil
}
