// Package engrave turns ABC notation into an engraved score: abcm2ps (Debian package abcm2ps)
// writes SVG, and rsvg-convert (Debian package librsvg2-bin) draws it as PNG. Both run without a
// shell, in a temporary directory removed afterwards, with a time limit, and, where prlimit
// (util-linux) is installed, with limits on memory, CPU time and the size of files they write.
// What they write is read back bounded.
package engrave

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Bounds and defaults.
const (
	// MaxABC bounds the ABC text engraved.
	MaxABC = 256 << 10
	// MaxSVG and MaxPNG bound what the programs write.
	MaxSVG = 8 << 20
	MaxPNG = 16 << 20
	// MaxLog bounds what is kept of the programs' messages.
	MaxLog = 4 << 10
	// MaxHeight bounds the PNG's height in pixels.
	MaxHeight = 20000
	// MinWidth, MaxWidth and DefaultWidth are the PNG's width in pixels.
	MinWidth     = 200
	MaxWidth     = 4000
	DefaultWidth = 1200
	// DefaultTimeout bounds each program's run.
	DefaultTimeout = 20 * time.Second
	// memoryLimit bounds each program's address space where prlimit is installed.
	memoryLimit = 1 << 30
)

// MissingError says a program is not installed, and which Debian package brings it.
type MissingError struct {
	Program, Package string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%s is not installed on the worker (apt-get install %s)", e.Program, e.Package)
}

// InputError is ABC or an option that cannot be engraved; the caller can fix it.
type InputError struct {
	Field, Problem string
}

func (e *InputError) Error() string { return e.Problem }

// Options say what to engrave.
type Options struct {
	// X picks the tune by its X: number; 0 engraves the first.
	X int
	// Width is the PNG's width in pixels (0 gives DefaultWidth).
	Width int
	// Timeout bounds each program (0 gives DefaultTimeout).
	Timeout time.Duration
	// Reserve, if set, is asked for the memory each program will take before it runs (a
	// memory budget's Acquire); an error from it is returned as it is, and what it returns is
	// called when the program has ended.
	Reserve func(program string, need int64) (release func(), err error)
}

// ProgramMemory is about what abcm2ps takes to engrave a tune, and rsvg-convert besides the
// image it draws.
const ProgramMemory = 64 << 20

// reserve asks o.Reserve for need bytes for program.
func (o Options) reserve(program string, need int64) (func(), error) {
	if o.Reserve == nil {
		return func() {}, nil
	}
	return o.Reserve(program, need)
}

// Score is an engraved tune.
type Score struct {
	SVG, PNG []byte
	// Systems counts the five-line staves engraved: the systems of a tune on one staff.
	Systems int
	// Width and Height are the PNG's size.
	Width, Height int
	// Log is what abcm2ps said, bounded.
	Log string
}

// forbidden are the directives with which ABC makes abcm2ps read other files of the worker:
// %%abc-include (another ABC file), %%format (a format file, or a PostScript file copied into
// the output), %%EPS (an EPS file), and abcm2ps's own options given in the ABC (-F reads a
// format file, -D names where to look for them). As an I: field each does the same. They are
// refused wherever they stand, not only at the start of a line: a line may start after a CR, a
// tab or an inline field, and no tune needs these words after %% or I:.
var forbidden = regexp.MustCompile(`(?i)(%%|\bI:)[ \t]*(abc-include|format|eps|begineps|abcm2ps)\b`)

// NormalizeLines returns abc with every line ending made a line feed. abcm2ps ends a line at a
// CR as well as at an LF, so a check that reads lines must see the same lines it does.
func NormalizeLines(abc string) string {
	if strings.IndexByte(abc, '\r') < 0 {
		return abc
	}
	return strings.ReplaceAll(strings.ReplaceAll(abc, "\r\n", "\n"), "\r", "\n")
}

// CheckABC refuses ABC that is too large, not text, or would read files of the worker. It
// checks the lines abcm2ps would read: those of NormalizeLines(abc).
func CheckABC(abc string) error {
	if len(abc) > MaxABC {
		return &InputError{"abc", fmt.Sprintf("the ABC is %d bytes; abc_render engraves at most %d", len(abc), MaxABC)}
	}
	if strings.IndexByte(abc, 0) >= 0 {
		return &InputError{"abc", "the ABC holds a NUL byte; it is not text"}
	}
	if m := forbidden.FindString(NormalizeLines(abc)); m != "" {
		return &InputError{"abc", fmt.Sprintf("the ABC asks to read another file (%q); the score is engraved from the tune alone: "+
			"remove %%%%abc-include, %%%%format, %%%%EPS and abcm2ps options, and put what they would bring in the ABC itself", strings.TrimSpace(m))}
	}
	return nil
}

// Render engraves the tune o.X of abc.
func Render(ctx context.Context, abc string, o Options) (*Score, error) {
	if err := CheckABC(abc); err != nil {
		return nil, err
	}
	abc = NormalizeLines(abc)
	width := o.Width
	if width == 0 {
		width = DefaultWidth
	}
	if width < MinWidth || width > MaxWidth {
		return nil, &InputError{"width", fmt.Sprintf("width %d is outside %d to %d pixels", width, MinWidth, MaxWidth)}
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	abcm2ps, err := lookPath("abcm2ps", "abcm2ps")
	if err != nil {
		return nil, err
	}
	rsvg, err := lookPath("rsvg-convert", "librsvg2-bin")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "hoot-engrave-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "tune.abc"), []byte(abc), 0o600); err != nil {
		return nil, err
	}

	args := []string{"-g", "-O", "score", "tune.abc"}
	if o.X > 0 {
		args = append(args, "-e", strconv.Itoa(o.X))
	}
	release, err := o.reserve("abcm2ps", ProgramMemory)
	if err != nil {
		return nil, err
	}
	log, err := run(ctx, timeout, dir, MaxSVG, abcm2ps, args...)
	release()
	log = ownLines(log, "tune.abc")
	if err != nil {
		return nil, fmt.Errorf("abcm2ps: %w: %s", err, log)
	}
	// With -g abcm2ps writes one file per tune: score001.svg first.
	svgs, _ := filepath.Glob(filepath.Join(dir, "score*.svg"))
	if len(svgs) == 0 {
		return nil, &InputError{"abc", "abcm2ps engraved nothing: " + firstLine(log, "no tune with a K: line was found")}
	}
	svg, err := readBounded(svgs[0], MaxSVG)
	if err != nil {
		return nil, err
	}
	s := &Score{SVG: svg, Systems: CountSystems(svg), Log: log, Width: width}
	sw, sh, ok := SVGSize(svg)
	if !ok {
		return nil, fmt.Errorf("abcm2ps wrote SVG without a width and height")
	}
	s.Height = int(sh * float64(width) / sw)
	if s.Height > MaxHeight {
		return nil, &InputError{"width", fmt.Sprintf("the score would be %d pixels tall at width %d, more than %d", s.Height, width, MaxHeight)}
	}
	// rsvg-convert draws the whole image, four bytes a pixel, before it writes the PNG.
	release, err = o.reserve("rsvg-convert", ProgramMemory+4*int64(width)*int64(s.Height))
	if err != nil {
		return nil, err
	}
	defer release()
	if _, err := run(ctx, timeout, dir, MaxPNG, rsvg, "-w", strconv.Itoa(width), "-b", "white", "-f", "png", "-o", "score.png", filepath.Base(svgs[0])); err != nil {
		return nil, fmt.Errorf("rsvg-convert: %w", err)
	}
	if s.PNG, err = readBounded(filepath.Join(dir, "score.png"), MaxPNG); err != nil {
		return nil, err
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(s.PNG))
	if err != nil {
		return nil, fmt.Errorf("rsvg-convert wrote no PNG: %w", err)
	}
	s.Width, s.Height = cfg.Width, cfg.Height
	return s, nil
}

func lookPath(program, pkg string) (string, error) {
	p, err := exec.LookPath(program)
	if err != nil {
		return "", &MissingError{Program: program, Package: pkg}
	}
	return p, nil
}

// run runs a program in dir with a time limit and returns what it said, bounded. fileLimit
// bounds the files it writes where prlimit is there to say so.
func run(ctx context.Context, timeout time.Duration, dir string, fileLimit int64, program string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if pl, err := exec.LookPath("prlimit"); err == nil {
		secs := int(timeout/time.Second) + 1
		args = append([]string{
			"--as=" + strconv.Itoa(memoryLimit),
			"--cpu=" + strconv.Itoa(secs),
			"--fsize=" + strconv.FormatInt(fileLimit, 10),
			"--", program,
		}, args...)
		program = pl
	}
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "LC_ALL=C"}
	out := &capped{max: MaxLog}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	log := strings.TrimSpace(out.String())
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && err != nil {
		return log, fmt.Errorf("took longer than %s", timeout)
	}
	return log, err
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &InputError{"abc", fmt.Sprintf("the engraved score is more than %d bytes", limit)}
	}
	return b, nil
}

// ownLines keeps of abcm2ps's messages only those about the file it was given, name, with the
// lines of it that they quote, and its banner and summary. Messages about any other file, and
// what they quote of it, are left out: were abcm2ps ever to read another file of the worker, its
// contents must not reach a log or a result.
func ownLines(log, name string) string {
	var out []string
	keep, dropped := false, 0
	for _, l := range strings.Split(log, "\n") {
		switch {
		case strings.HasPrefix(l, name+":"):
			keep = true
		case strings.HasPrefix(l, " "), strings.HasPrefix(l, "\t"):
			// A quoted source line or its caret belongs to the message before it.
		case strings.HasPrefix(l, "abcm2ps-"), strings.HasPrefix(l, "Output written on "), l == "File "+name, strings.TrimSpace(l) == "":
			keep = true
		default:
			keep = false
		}
		if keep {
			out = append(out, l)
		} else {
			dropped++
		}
	}
	if dropped > 0 {
		out = append(out, fmt.Sprintf("(%d lines of messages about other files left out)", dropped))
	}
	return strings.Join(out, "\n")
}

func firstLine(log, otherwise string) string {
	for _, l := range strings.Split(log, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "abcm2ps-") && !strings.HasPrefix(l, "File ") {
			return l
		}
	}
	return otherwise
}

// staff matches the path abcm2ps draws a five-line staff with: a move, then five horizontal
// lines of the same length.
var staff = regexp.MustCompile(`<path d="m[0-9.]+ [0-9.]+\s+h[0-9.]+\s+(?:M[0-9.]+ [0-9.]+\s+h[0-9.]+\s+){4}" class="stroke"/>`)

// CountSystems counts the five-line staves in SVG that abcm2ps wrote.
func CountSystems(svg []byte) int { return len(staff.FindAllIndex(svg, -1)) }

var sizeAttrs = regexp.MustCompile(`<svg[^>]*?\swidth="([0-9.]+)(?:px)?"[^>]*?\sheight="([0-9.]+)(?:px)?"`)

// SVGSize reads the width and height of an SVG's root element, in pixels.
func SVGSize(svg []byte) (w, h float64, ok bool) {
	m := sizeAttrs.FindSubmatch(svg[:min(len(svg), 4096)])
	if m == nil {
		return 0, 0, false
	}
	w, err1 := strconv.ParseFloat(string(m[1]), 64)
	h, err2 := strconv.ParseFloat(string(m[2]), 64)
	if err1 != nil || err2 != nil || w < 1 || h < 1 || w > 1e6 || h > 1e6 {
		return 0, 0, false
	}
	return w, h, true
}
