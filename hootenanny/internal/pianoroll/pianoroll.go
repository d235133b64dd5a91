// Package pianoroll draws a MIDI file as a piano roll: pitch upwards against time to the right,
// a keyboard down the left edge, bar and beat lines from the file's time signatures and tempo
// map, one colour per channel and each note shaded by its velocity. It uses only the standard
// image packages and a bitmap font for the key labels.
package pianoroll

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"sort"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// Bounds and defaults.
const (
	MinSize       = 200
	MaxSize       = 4000
	DefaultWidth  = 1200
	DefaultHeight = 480
	// MaxNotes bounds the notes drawn; a file with more in range is drawn up to this many.
	MaxNotes = 200000
	// MaxPaint bounds the pixels the notes paint, in images' worth: many long notes stacked on
	// few keys would otherwise paint the same pixels for a long time.
	MaxPaint = 32
	// MaxGridLines bounds the bar and beat lines walked.
	MaxGridLines = 100000
	// KeyboardWidth is the width of the keyboard on the left, in pixels.
	KeyboardWidth = 40
	// FitMargin is the semitones added above and below the notes when the range is fitted.
	FitMargin = 2
	// MinFitSpan is the fewest keys a fitted range shows.
	MinFitSpan = 13
	// DrumChannel is the General MIDI percussion channel (channel 10, counted from 0).
	DrumChannel = 9
)

// The colours of the frame.
var (
	WhiteRow   = color.RGBA{0xfa, 0xfa, 0xfa, 0xff}
	BlackRow   = color.RGBA{0xec, 0xec, 0xee, 0xff}
	BeatLine   = color.RGBA{0xd4, 0xd4, 0xd8, 0xff}
	BarLine    = color.RGBA{0x88, 0x88, 0x90, 0xff}
	WhiteKey   = color.RGBA{0xff, 0xff, 0xff, 0xff}
	BlackKey   = color.RGBA{0x30, 0x30, 0x34, 0xff}
	KeyEdge    = color.RGBA{0xa0, 0xa0, 0xa8, 0xff}
	LabelColor = color.RGBA{0x50, 0x50, 0x58, 0xff}
)

// palette gives each channel a colour; the drum channel is grey.
var palette = [16]color.RGBA{
	{0x1f, 0x6f, 0xd0, 0xff}, // blue
	{0xd6, 0x3a, 0x2f, 0xff}, // red
	{0x2e, 0x9e, 0x44, 0xff}, // green
	{0xe0, 0x8a, 0x00, 0xff}, // orange
	{0x8e, 0x3f, 0xc4, 0xff}, // purple
	{0x00, 0x9a, 0xa6, 0xff}, // teal
	{0xc4, 0x3f, 0x8e, 0xff}, // magenta
	{0x7a, 0x5a, 0x20, 0xff}, // brown
	{0x5a, 0x7d, 0x00, 0xff}, // olive
	{0x40, 0x40, 0x40, 0xff}, // drums: dark grey
	{0x00, 0x4f, 0x7a, 0xff}, // navy
	{0xb0, 0x10, 0x40, 0xff}, // crimson
	{0x10, 0x70, 0x50, 0xff}, // pine
	{0xa0, 0x60, 0xd0, 0xff}, // lilac
	{0xd0, 0xa0, 0x00, 0xff}, // mustard
	{0x60, 0x60, 0xc0, 0xff}, // slate
}

// ChannelColor is the colour of a channel's notes at full velocity.
func ChannelColor(ch int) color.RGBA { return palette[ch&15] }

// Shade is the colour of a note of channel ch at velocity vel: the channel's colour, paler the
// softer the note (velocity 127 is the colour itself).
func Shade(ch, vel int) color.RGBA {
	c := ChannelColor(ch)
	vel = max(1, min(vel, 127))
	a := 0.3 + 0.7*float64(vel)/127
	mix := func(v uint8) uint8 { return uint8(math.Round(float64(v)*a + 255*(1-a))) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 0xff}
}

// Options choose what is drawn. Zero values are defaults.
type Options struct {
	// Width and Height in pixels (0 gives the defaults).
	Width, Height int
	// Start and End in seconds; End 0 is the end of the last note (or of the file).
	Start, End float64
	// Low and High are the keys shown; both 0 fits them to the notes.
	Low, High int
}

// RangeError is a request the drawing cannot honour; Field names the option.
type RangeError struct {
	Field, Problem string
}

func (e *RangeError) Error() string { return e.Field + ": " + e.Problem }

// ChannelUse is a channel drawn, with its colour and the notes it has in view.
type ChannelUse struct {
	Channel int
	Color   color.RGBA
	Notes   int
}

// Roll is a drawn piano roll and what it shows.
type Roll struct {
	Image      *image.RGBA
	Start, End float64
	Low, High  int
	// Drawn counts notes at least partly in view that were drawn; Total all notes of the file.
	Drawn, Total int
	// Cut is true when MaxNotes or MaxPaint stopped the drawing before every note in view.
	Cut      bool
	Channels []ChannelUse
	// Bars are the x positions of the bar lines drawn.
	Bars []int

	tempo []midi.TempoChange
	tpq   int
}

// X is the pixel column of a time in seconds.
func (r *Roll) X(sec float64) int {
	w := r.Image.Bounds().Dx() - KeyboardWidth
	return KeyboardWidth + int(math.Floor((sec-r.Start)/(r.End-r.Start)*float64(w)))
}

// Row is the pixel rows [top, bottom) of a key.
func (r *Roll) Row(pitch int) (top, bottom int) {
	h := float64(r.Image.Bounds().Dy())
	n := float64(r.High - r.Low + 1)
	top = int(math.Round(float64(r.High-pitch) * h / n))
	bottom = int(math.Round(float64(r.High-pitch+1) * h / n))
	return top, bottom
}

// Seconds converts a tick of the file to seconds.
func (r *Roll) Seconds(tick float64) float64 { return seconds(r.tempo, r.tpq, tick) }

func seconds(tempo []midi.TempoChange, tpq int, tick float64) float64 {
	i := sort.Search(len(tempo), func(i int) bool { return float64(tempo[i].Tick) > tick }) - 1
	if i < 0 {
		i = 0
	}
	c := tempo[i]
	return c.Seconds + (tick-float64(c.Tick))/float64(tpq)*float64(c.MicrosPerQuarter)/1e6
}

// IsBlack reports the black keys.
func IsBlack(pitch int) bool {
	switch pitch % 12 {
	case 1, 3, 6, 8, 10:
		return true
	}
	return false
}

// Draw draws f as o asks.
func Draw(f *midi.File, o Options) (*Roll, error) {
	if f == nil || f.TicksPerQuarter <= 0 {
		return nil, errors.New("the MIDI file has no metrical time division")
	}
	w, h := o.Width, o.Height
	if w == 0 {
		w = DefaultWidth
	}
	if h == 0 {
		h = DefaultHeight
	}
	if w < MinSize || w > MaxSize {
		return nil, &RangeError{"width", fmt.Sprintf("%d pixels is outside %d to %d", w, MinSize, MaxSize)}
	}
	if h < MinSize || h > MaxSize {
		return nil, &RangeError{"height", fmt.Sprintf("%d pixels is outside %d to %d", h, MinSize, MaxSize)}
	}
	if o.Start < 0 || math.IsNaN(o.Start) || math.IsInf(o.Start, 0) {
		return nil, &RangeError{"start_seconds", fmt.Sprintf("%g is not a time from the start", o.Start)}
	}
	if o.End < 0 || math.IsNaN(o.End) || math.IsInf(o.End, 0) {
		return nil, &RangeError{"end_seconds", fmt.Sprintf("%g is not a time from the start", o.End)}
	}

	r := &Roll{tempo: midi.TempoMap(f), tpq: f.TicksPerQuarter}
	notes := midi.NoteEvents(f)
	r.Total = len(notes)

	// The time range: the end of the last note unless given.
	var last float64
	for _, n := range notes {
		last = max(last, r.Seconds(float64(n.OnTick+n.DurTicks)))
	}
	if last == 0 {
		var endTick int64
		for _, t := range f.Tracks {
			if k := len(t.Events); k > 0 {
				endTick = max(endTick, t.Events[k-1].Tick)
			}
		}
		last = r.Seconds(float64(endTick))
	}
	r.Start, r.End = o.Start, o.End
	if r.End == 0 {
		r.End = last
		if r.End <= r.Start {
			r.End = r.Start + 1
		}
	}
	if r.End <= r.Start {
		return nil, &RangeError{"end_seconds", fmt.Sprintf("%g is not after start_seconds %g", o.End, o.Start)}
	}

	inTime := func(n midi.Note) bool {
		on := r.Seconds(float64(n.OnTick))
		off := r.Seconds(float64(n.OnTick + n.DurTicks))
		return off >= r.Start && on < r.End
	}

	// The pitch range: fitted to the notes in view unless given.
	switch {
	case o.Low == 0 && o.High == 0:
		lo, hi := 128, -1
		for _, n := range notes {
			if inTime(n) {
				lo, hi = min(lo, n.Pitch), max(hi, n.Pitch)
			}
		}
		if hi < 0 {
			lo, hi = 60, 60
		}
		lo, hi = lo-FitMargin, hi+FitMargin
		for hi-lo+1 < MinFitSpan {
			lo--
			hi++
		}
		r.Low, r.High = max(lo, 0), min(hi, 127)
	case o.Low < 0 || o.Low > 127:
		return nil, &RangeError{"low_pitch", fmt.Sprintf("%d is not a MIDI key (0 to 127)", o.Low)}
	case o.High < 0 || o.High > 127:
		return nil, &RangeError{"high_pitch", fmt.Sprintf("%d is not a MIDI key (0 to 127)", o.High)}
	case o.High < o.Low:
		return nil, &RangeError{"high_pitch", fmt.Sprintf("%d is below low_pitch %d", o.High, o.Low)}
	default:
		r.Low, r.High = o.Low, o.High
	}

	r.Image = image.NewRGBA(image.Rect(0, 0, w, h))
	r.background()
	r.grid(f)
	r.notes(notes, inTime)
	r.keyboard()
	return r, nil
}

func (r *Roll) fill(x0, y0, x1, y1 int, c color.RGBA) {
	draw.Draw(r.Image, image.Rect(x0, y0, x1, y1).Intersect(r.Image.Bounds()), &image.Uniform{c}, image.Point{}, draw.Src)
}

// background shades the rows of black keys.
func (r *Roll) background() {
	w := r.Image.Bounds().Dx()
	for p := r.Low; p <= r.High; p++ {
		top, bottom := r.Row(p)
		c := WhiteRow
		if IsBlack(p) {
			c = BlackRow
		}
		r.fill(KeyboardWidth, top, w, bottom, c)
	}
}

// grid draws a line at every beat and a darker one at every bar, walking the time signatures
// (4/4 until the first); a time signature that comes mid-bar starts a new bar.
func (r *Roll) grid(f *midi.File) {
	type sig struct {
		tick     int64
		num, den int
	}
	var sigs []sig
	for _, t := range f.Tracks {
		for _, e := range t.Events {
			if n, d, _, _, ok := e.TimeSignatureValue(); ok && n > 0 && d > 0 {
				sigs = append(sigs, sig{e.Tick, n, d})
			}
		}
	}
	sort.SliceStable(sigs, func(i, j int) bool { return sigs[i].tick < sigs[j].tick })
	h := r.Image.Bounds().Dy()
	tpq := float64(r.tpq)
	num, den := 4, 4
	next := 0
	var beats, bars []int
	tick := 0.0
	for lines := 0; lines < MaxGridLines; {
		for next < len(sigs) && float64(sigs[next].tick) <= tick {
			num, den = sigs[next].num, sigs[next].den
			next++
		}
		if r.Seconds(tick) > r.End {
			break
		}
		beat := tpq * 4 / float64(den)
		end := tick + beat*float64(num)
		if next < len(sigs) && float64(sigs[next].tick) < end {
			end = float64(sigs[next].tick)
		}
		bars = append(bars, r.X(r.Seconds(tick)))
		lines++
		for b := tick + beat; b < end-1e-9 && lines < MaxGridLines; b += beat {
			beats = append(beats, r.X(r.Seconds(b)))
			lines++
		}
		tick = end
	}
	w := r.Image.Bounds().Dx()
	in := func(x int) bool { return x >= KeyboardWidth && x < w }
	// Beat lines only where they stand at least four pixels apart.
	if len(beats) > 0 && (w-KeyboardWidth)/(len(beats)+len(bars)) >= 4 {
		for _, x := range beats {
			if in(x) {
				r.fill(x, 0, x+1, h, BeatLine)
			}
		}
	}
	if len(bars) > 0 && (w-KeyboardWidth)/len(bars) >= 2 {
		for _, x := range bars {
			if in(x) {
				r.fill(x, 0, x+1, h, BarLine)
				r.Bars = append(r.Bars, x)
			}
		}
	}
}

// notes draws the notes in view, at most MaxNotes, in onset order.
func (r *Roll) notes(notes []midi.Note, inTime func(midi.Note) bool) {
	w := r.Image.Bounds().Dx()
	var count [16]int
	budget := MaxPaint * w * r.Image.Bounds().Dy()
	for _, n := range notes {
		if n.Pitch < r.Low || n.Pitch > r.High || !inTime(n) {
			continue
		}
		if r.Drawn >= MaxNotes || budget <= 0 {
			r.Cut = true
			break
		}
		r.Drawn++
		count[n.Channel&15]++
		x0 := max(r.X(r.Seconds(float64(n.OnTick))), KeyboardWidth)
		x1 := min(r.X(r.Seconds(float64(n.OnTick+n.DurTicks))), w)
		if x1 <= x0 {
			x1 = x0 + 1
		}
		top, bottom := r.Row(n.Pitch)
		if bottom <= top {
			bottom = top + 1
		}
		budget -= (x1 - x0) * (bottom - top)
		c := Shade(n.Channel, n.Velocity)
		// A darker edge keeps repeated notes apart when the note is big enough to have one.
		if x1-x0 >= 4 && bottom-top >= 4 {
			r.fill(x0, top, x1, bottom, darker(c))
			r.fill(x0+1, top+1, x1-1, bottom-1, c)
		} else {
			r.fill(x0, top, x1, bottom, c)
		}
	}
	for ch, k := range count {
		if k > 0 {
			r.Channels = append(r.Channels, ChannelUse{Channel: ch, Color: ChannelColor(ch), Notes: k})
		}
	}
}

func darker(c color.RGBA) color.RGBA {
	return color.RGBA{c.R / 10 * 7, c.G / 10 * 7, c.B / 10 * 7, 0xff}
}

// keyboard draws the keys on the left, with each C named (C4 is key 60).
func (r *Roll) keyboard() {
	h := r.Image.Bounds().Dy()
	r.fill(0, 0, KeyboardWidth, h, WhiteKey)
	for p := r.Low; p <= r.High; p++ {
		top, bottom := r.Row(p)
		if IsBlack(p) {
			r.fill(0, top, KeyboardWidth*3/5, bottom, BlackKey)
		}
		// The edge between B and C and between E and F, where two white keys meet.
		if p%12 == 0 || p%12 == 5 {
			r.fill(0, bottom-1, KeyboardWidth, bottom, KeyEdge)
		}
	}
	r.fill(KeyboardWidth-1, 0, KeyboardWidth, h, KeyEdge)
	// Labels need room: a C every octave at least as tall as the font.
	face := basicfont.Face7x13
	top0, bottom0 := r.Row(r.High)
	if float64(bottom0-top0)*12 < 14 {
		return
	}
	d := &font.Drawer{Dst: r.Image, Src: &image.Uniform{LabelColor}, Face: face}
	for p := r.Low; p <= r.High; p++ {
		if p%12 != 0 {
			continue
		}
		_, bottom := r.Row(p)
		y := min(max(bottom-2, 11), h-2)
		d.Dot = fixed.P(KeyboardWidth-2-7*len(label(p)), y)
		d.DrawString(label(p))
	}
}

// label names a C key: C4 is middle C (60), C-1 the lowest.
func label(p int) string { return fmt.Sprintf("C%d", p/12-1) }
