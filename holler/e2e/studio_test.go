package e2e

import (
	"bytes"
	"context"
	"image/png"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/golang-jwt/jwt/v5"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/access/accesstest"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// chromium finds Debian's Chromium, which the studio test drives headless. Without it the test
// is skipped, except in CI, where it fails: .ci/run installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI needs Chromium for the studio test: apt-get install chromium")
	}
	t.Skip("Chromium is not installed (apt-get install chromium); CI runs this test")
	return ""
}

// browser starts a headless Chromium for the test and returns a context to drive it with.
// browserSteps starts the browser on path and returns its context with two helpers: step runs
// actions within 20 s and fails the test with what the page shows, text reads an element's text.
func browserSteps(t *testing.T, path string) (context.Context, func(string, ...chromedp.Action[chromedp.Void]), func(string) string) {
	ctx := browser(t, path)
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`main`)))
			t.Fatalf("browser, %s: %v\nthe page shows:\n%s", what, err, page)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("browser, the text of %s: %v", sel, err)
		}
		return s
	}
	return ctx, step, text
}

func browser(t *testing.T, path string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // tests may run as root, where Chromium's sandbox cannot start
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1200, 900),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	// The first action starts the browser, which lives as long as the context it ran with:
	// start it on ctx itself, so that a step's own timeout ends only that step.
	if err := chromedp.Do(ctx); err != nil {
		cancelCtx()
		cancelAlloc()
		t.Fatalf("start %s: %v", path, err)
	}
	tctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return tctx
}

// TestStudio opens the studio in a real browser: it finds an artifact made through MCP by its
// tag, opens it from the keyboard, sees its lineage and its child, and the page is drawn.
func TestStudio(t *testing.T) {
	t.Parallel()
	path := chromium(t)
	url := startStack(t)
	base := strings.TrimSuffix(url, "/mcp")
	s := connectHTTP(t, url)
	c := newCaller(t, s)
	abc := c.call("artifact_create", map[string]any{
		"content": "X:1\nT:Studio Reel\nM:4/4\nL:1/8\nK:D\n|:DFAF dAFA|GBdB AFEF:|\n", "mime_type": "text/vnd.abc",
		"tags": []any{"studio-test", "reel"}, "creator": "studio-e2e",
	})
	parent := toString(obj(abc, "artifact")["id"])
	midi := c.call("abc_to_midi", map[string]any{"artifact_id": parent, "tags": []any{"studio-test"}})
	child := toString(obj(midi, "artifact")["id"])
	other := toString(obj(c.call("artifact_create", map[string]any{"content": "not in the search", "tags": []any{"elsewhere"}}), "artifact")["id"])
	if parent == "" || child == "" || other == "" {
		t.Fatalf("artifacts: %v %v", abc, midi)
	}

	ctx, step, text := browserSteps(t, path)
	parentLink := `#artifacts a[href="#/artifact/` + parent + `"]`
	step("search by tag",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="#/"]`)),
		chromedp.SendKeys(chromedp.CSS(`#search input[name="tag"]`), "studio-test"),
		chromedp.Click(chromedp.CSS(`#search button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(parentLink)),
	)
	rows := text(`#artifacts tbody`)
	// From the keyboard: focus the artifact's link and press Enter.
	step("open the artifact from the keyboard",
		chromedp.Focus(chromedp.CSS(parentLink)),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="#/artifact/`+parent+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#lineage svg`)),
		chromedp.WaitVisible(chromedp.CSS(`#artifact-media pre`)),
	)
	lineage, meta := text(`#lineage`), text(`#artifact-meta`)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if !strings.Contains(rows, parent) || !strings.Contains(rows, child) || !strings.Contains(rows, "studio-e2e") || strings.Contains(rows, other) {
		t.Errorf("the list by tag shows:\n%s", rows)
	}
	if !strings.Contains(lineage, parent) || !strings.Contains(lineage, child) || !strings.Contains(lineage, "MIDI") {
		t.Errorf("the lineage shows %q, want the artifact and its MIDI child", lineage)
	}
	if !strings.Contains(meta, "text/vnd.abc") || !strings.Contains(meta, "studio-test") {
		t.Errorf("the metadata shows %q", meta)
	}
	checkNotBlank(t, shot)

	// The child's page links back to its parent, and annotating it shows the note.
	step("annotate the child",
		chromedp.Focus(chromedp.CSS(`#lineage a[href="#/artifact/`+child+`"]`)),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="#/artifact/`+child+`"]`)),
		chromedp.SendKeys(chromedp.CSS(`#annotate input[name="message"]`), "The B part lifts."),
		chromedp.Click(chromedp.CSS(`#annotate button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.Search(`//ul[@id="annotations"]/li[contains(., "The B part lifts.")]`)),
	)
	if notes := text(`#annotations`); !strings.Contains(notes, "studio") {
		t.Errorf("annotations: %q", notes)
	}

	// The MIDI has no audio yet: the page renders it on request (midi_render, a job) and plays
	// the WAV it made.
	step("render the MIDI to audio",
		chromedp.Click(chromedp.Search(`//div[@id="artifact-actions"]/button[.="Render audio"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#artifact-media audio`)),
	)
	src, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`#artifact-media audio`), "src"))
	if err != nil || !strings.HasPrefix(src.Value, "/artifacts/art_") {
		t.Errorf("the player plays %q (%v)", src.Value, err)
	}

	// The page draws the MIDI as a piano roll on request, and engraves the ABC as a score, and
	// shows each picture.
	step("draw the piano roll",
		chromedp.Click(chromedp.Search(`//div[@id="artifact-actions"]/button[.="Piano roll"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#artifact-media img[src^="data:image/png"]`)),
	)
	step("engrave the score",
		chromedp.Navigate(base+"/studio/#/artifact/"+parent),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="#/artifact/`+parent+`"]`)),
		chromedp.Click(chromedp.Search(`//div[@id="artifact-actions"]/button[.="Show the score"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#artifact-media img[src^="data:image/png"]`)),
	)

	// The jobs page shows a job that was started through MCP.
	book := "X:1\nT:A\nK:C\nCDEF|]\n\nX:2\nT:B\nK:C\nGFED|]\n"
	job := toString(c.call("abc_book_to_midi", map[string]any{"abc": book})["job_id"])
	step("the jobs page",
		chromedp.Navigate(base+"/studio/#/jobs"),
		chromedp.WaitVisible(chromedp.Search(`//table[@id="jobs"]//td[contains(., "`+job+`")]`)),
	)
	jobs := text(`#jobs tbody`)
	if !strings.Contains(jobs, "abc_book_to_midi") {
		t.Errorf("jobs: %q", jobs)
	}
}

// TestStudioWithoutWorkers opens the studio of a gateway that has no live worker: the page
// says so, and what to do.
func TestStudioWithoutWorkers(t *testing.T) {
	t.Parallel()
	path := chromium(t)
	g, err := gateway.Start(gateway.Config{WorkerEndpoint: "tcp://127.0.0.1:*"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.ServeHTTP(sctx, l) }()
	t.Cleanup(func() { cancel(); <-done; g.Close() })

	ctx := browser(t, path)
	err = chromedp.Do(ctx,
		chromedp.Navigate("http://"+l.Addr().String()+"/studio/"),
		chromedp.WaitVisible(chromedp.CSS(`#banner`)),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#banner`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "No worker is live") || !strings.Contains(text, "make run") {
		t.Errorf("banner %q", text)
	}
}

// checkNotBlank fails unless the screenshot has real content: enough spread of brightness and
// enough distinct colours that it is not one flat page.
func checkNotBlank(t *testing.T, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 600 || b.Dy() < 400 {
		t.Fatalf("the screenshot is %v", b)
	}
	colours := map[uint32]bool{}
	var sum, sumSq, n float64
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[(r>>11)<<10|(g>>11)<<5|bl>>11] = true
			l := 0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(bl)
			sum += l
			sumSq += l * l
			n++
		}
	}
	mean := sum / n
	stddev := math.Sqrt(sumSq/n - mean*mean)
	if len(colours) < 8 || stddev < 1000 {
		t.Errorf("the page looks blank: %d colours, brightness spread %.0f (of 65535)", len(colours), stddev)
	}
}

// TestStudioSignedIn opens the studio of a gateway that wants a token: the page loads, asks
// for one, takes a wrong one back with the server's words, signs in with a right one, lists
// the artifacts, and shows a picture and an SVG score, fetched with the token and shown
// through <img> from memory.
func TestStudioSignedIn(t *testing.T) {
	t.Parallel()
	path := chromium(t)
	guard, token := tokenGuard(t)
	endpoint := startStackWith(t, func(cfg *gateway.Config) { cfg.Access = guard })
	base := strings.TrimSuffix(endpoint, "/mcp")
	s := connectHTTPToken(t, endpoint, token)
	c := newCaller(t, s)
	abc := c.call("artifact_create", map[string]any{
		"content": "X:1\nT:Signed Reel\nM:4/4\nL:1/8\nK:D\n|:DFAF dAFA|GBdB AFEF:|\n", "mime_type": "text/vnd.abc",
		"tags": []any{"signed-in"}, "creator": "studio-e2e",
	})
	parent := toString(obj(abc, "artifact")["id"])
	res, err := c.s.CallTool(c.ctx, &mcp.CallToolParams{Name: "abc_render", Arguments: map[string]any{"artifact_id": parent, "tags": []any{"signed-in"}}})
	if err != nil || res.IsError {
		t.Fatalf("abc_render: %v %s", err, text(res))
	}
	svg := toString(obj(res.StructuredContent, "svg")["id"])
	pic := toString(obj(res.StructuredContent, "png")["id"])

	ctx, step, text := browserSteps(t, path)
	step("the page asks for a token",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="signin"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#signin input[name="token"]`)),
	)
	if why := text(`#signin-why`); !strings.Contains(why, "needs a bearer token") || !strings.Contains(why, "holler token add") {
		t.Errorf("the sign-in form says %q, want why and where a token comes from", why)
	}
	step("a wrong token is refused",
		chromedp.SendKeys(chromedp.CSS(`#signin input[name="token"]`), "hoot_not_a_token_of_this_server"),
		chromedp.Click(chromedp.CSS(`#signin button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.Search(`//p[@id="signin-why"][@class="error"][contains(., "not one this server knows")]`)),
	)
	step("sign in and list",
		chromedp.SendKeys(chromedp.CSS(`#signin input[name="token"]`), token),
		chromedp.Click(chromedp.CSS(`#signin button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="#/"]`)),
		chromedp.SendKeys(chromedp.CSS(`#search input[name="tag"]`), "signed-in"),
		chromedp.Click(chromedp.CSS(`#search button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#artifacts a[href="#/artifact/`+svg+`"]`)),
	)
	rows := text(`#artifacts tbody`)
	for _, id := range []string{parent, svg, pic} {
		if !strings.Contains(rows, id) {
			t.Errorf("the list does not show %s:\n%s", id, rows)
		}
	}
	// A picture is drawn from a blob URL, an SVG score from a data URL: both through <img>,
	// both fetched with the token, and both decoded (naturalWidth above 0).
	drawn := func(prefix string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](`(() => { const i = document.querySelector('#artifact-media img'); ` +
			`return i && i.src.startsWith('` + prefix + `') && i.complete && i.naturalWidth > 0; })()`)
	}
	step("see the picture",
		chromedp.Navigate(base+"/studio/#/artifact/"+pic),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="#/artifact/`+pic+`"]`)),
		drawn("blob:"),
	)
	step("see the score",
		chromedp.Navigate(base+"/studio/#/artifact/"+svg),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="#/artifact/`+svg+`"]`)),
		drawn("data:image/svg+xml"),
	)
	if meta := text(`#artifact-meta`); !strings.Contains(meta, "image/svg+xml") {
		t.Errorf("the score's metadata shows %q", meta)
	}
	// Download saves the score's bytes, fetched with the token, under the route's file name.
	downloads := t.TempDir()
	dctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	begun := chromedp.Events(dctx, cdpbrowser.DownloadWillBegin)
	progress := chromedp.Events(dctx, cdpbrowser.DownloadProgress)
	step("download the score",
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
				Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: downloads, EventsEnabled: &[]bool{true}[0],
			})
			return err
		}),
		chromedp.Click(chromedp.Search(`//div[@id="artifact-actions"]/a[.="Download"]`)),
	)
	for ev, err := range begun {
		if err != nil {
			t.Fatalf("no download began: %v", err)
		}
		if ev.SuggestedFilename != svg+".svg" {
			t.Errorf("the download is named %q, want %s.svg", ev.SuggestedFilename, svg)
		}
		break
	}
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("the download did not finish: %v", err)
		}
		if ev.State != cdpbrowser.DownloadProgressStateCompleted {
			continue
		}
		saved, err := os.ReadFile(filepath.Join(downloads, ev.GUID))
		if err != nil || !bytes.Contains(saved, []byte("<svg")) || !bytes.Contains(saved, []byte("Signed Reel")) {
			t.Errorf("the saved score: %v, %.200q", err, saved)
		}
		break
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	checkNotBlank(t, shot)
	// The ABC is read with the token too, and signing out asks again.
	step("read the tune, then sign out",
		chromedp.Navigate(base+"/studio/#/artifact/"+parent),
		chromedp.WaitVisible(chromedp.Search(`//div[@id="artifact-media"]/pre[contains(., "Signed Reel")]`)),
		chromedp.Click(chromedp.CSS(`#signout`)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="signin"]`)),
	)
}

// TestStudioSignedInOAuth opens the studio of a gateway that takes OAuth access tokens: the
// sign-in form names the issuer, the resource and the scopes from the protected resource
// metadata, and an access token of that issuer pasted there signs the page in.
func TestStudioSignedInOAuth(t *testing.T) {
	t.Parallel()
	path := chromium(t)
	iss := accesstest.NewIssuer(t)
	key := iss.AddKey("k1", true)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	o, err := access.NewOAuth(access.OAuthConfig{Issuer: iss.URL, Audience: base + "/mcp", ScopeTiers: map[string]hootv1.Tier{"hoot": hootv1.Tier_TIER_STANDARD}})
	if err != nil {
		t.Fatal(err)
	}
	guard, err := access.NewGuard(access.Config{OAuth: o})
	if err != nil {
		t.Fatal(err)
	}
	startStackOn(t, l, func(cfg *gateway.Config) { cfg.Access = guard })
	token := iss.Sign(jwt.SigningMethodES256, key, "k1", iss.Claims(base+"/mcp", "hoot"))

	ctx := browser(t, path)
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err = chromedp.Do(sctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="signin"]`)),
		chromedp.WaitVisible(chromedp.Search(`//p[@id="signin-oauth"]/a`)),
	)
	if err != nil {
		t.Fatalf("browser, the sign-in form: %v", err)
	}
	said, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#signin-oauth`)))
	if err != nil || !strings.Contains(said, iss.URL) || !strings.Contains(said, base+"/mcp") || !strings.Contains(said, "hoot") {
		t.Errorf("the form says %q (%v), want the issuer, the resource and the scope", said, err)
	}
	err = chromedp.Do(sctx,
		chromedp.SendKeys(chromedp.CSS(`#signin input[name="token"]`), token),
		chromedp.Click(chromedp.CSS(`#signin button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="#/"]`)),
		chromedp.Poll[chromedp.Void](`document.querySelector('#list-note').textContent.includes('No artifact matches')`),
	)
	if err != nil {
		page, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`main`)))
		t.Fatalf("browser, signing in with an access token: %v\nthe page shows:\n%s", err, page)
	}
}
