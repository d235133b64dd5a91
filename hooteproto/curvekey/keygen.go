package curvekey

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Keygen is the keygen command of a program named prog: it parses args (--out DIR/NAME), makes
// a key pair, writes its two files and tells out where they are and, through next (which may be
// nil), what to do with them. It returns flag.ErrHelp after printing help for -h.
func Keygen(prog string, args []string, out io.Writer, next func(publicPath, secretPath string) string) error {
	fs := flag.NewFlagSet(prog+" keygen", flag.ContinueOnError)
	fs.SetOutput(out)
	base := fs.String("out", "", "`DIR/NAME` of the key files to write: NAME"+PublicSuffix+" and NAME"+SecretSuffix)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s keygen --out DIR/NAME\n\n"+
			"Makes a CURVE key pair for encrypted, authenticated connections between the\n"+
			"gateway and its workers, and writes DIR/NAME%s (public: give it to the other\n"+
			"side) and DIR/NAME%s (secret: stays here, mode 0600). Never overwrites.\n\nFlags:\n",
			prog, PublicSuffix, SecretSuffix)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("keygen: unexpected argument %q; use --out DIR/NAME", fs.Arg(0))
	}
	if *base == "" {
		return errors.New("keygen: name the key files with --out DIR/NAME, such as --out keys/" + prog)
	}
	p, err := Generate()
	if err != nil {
		return err
	}
	publicPath, secretPath, err := WriteFiles(*base, p, prog+" keygen")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s (public key %s)\nwrote %s (secret, mode 0600)\n", publicPath, p.Public, secretPath)
	if next != nil {
		fmt.Fprintln(out, next(publicPath, secretPath))
	}
	return nil
}
