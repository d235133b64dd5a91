package abcmidi

import (
	"strconv"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
)

// maxOverlays bounds the overlay voices one voice may open (A & B & C| has two).
const maxOverlays = 8

// splitOverlays plays voice overlays as abc2midi does: the music after each & in a bar is a
// voice of its own from the bar's start, on the next free channel, and the voice it is
// written in goes on without it. It returns a copy of t whose voices have no overlays, each
// overlay voice (id "V&1", "V&2", ...) right after its voice: its bars are the written
// voice's bar lines, keys and meters, with a silent rest as long as the written bar wherever
// the bar has no overlay (an overlay shorter than its bar is not filled out: abc2midi goes
// on from its end). t is not changed.
func splitOverlays(t *abc.Tune) *abc.Tune {
	has := false
	for _, v := range t.Voices {
		for _, el := range v.Elements {
			if _, ok := el.(*abc.Overlay); ok {
				has = true
			}
		}
	}
	if !has {
		return t
	}
	tu := *t
	tu.Voices = nil
	for _, v := range t.Voices {
		main, overlays := splitVoice(v)
		tu.Voices = append(tu.Voices, main)
		tu.Voices = append(tu.Voices, overlays...)
	}
	return &tu
}

// splitVoice separates one voice's overlays (see splitOverlays).
func splitVoice(v *abc.Voice) (*abc.Voice, []*abc.Voice) {
	n := 0 // overlays the voice opens in its busiest bar
	k := 0
	for _, el := range v.Elements {
		switch el.(type) {
		case *abc.Overlay:
			k = min(k+1, maxOverlays)
			n = max(n, k)
		case *abc.BarLine, *abc.Ending:
			k = 0
		}
	}
	if n == 0 {
		return v, nil
	}
	main := &abc.Voice{ID: v.ID, Def: v.Def}
	overlays := make([]*abc.Voice, n)
	for i := range overlays {
		overlays[i] = &abc.Voice{ID: v.ID + "&" + strconv.Itoa(i+1), Def: v.Def}
	}
	var bar [][]abc.Element  // this bar's elements: [0] the voice's, [k] overlay k's
	var length []abc.Rat     // how long each runs in this bar
	var fields []abc.Element // the voice's key, meter and unit changes in this bar
	reset := func() {
		bar = make([][]abc.Element, n+1)
		length = make([]abc.Rat, n+1)
		for i := range length {
			length[i] = abc.R(0, 1)
		}
		fields = nil
	}
	reset()
	flush := func(end abc.Element) {
		main.Elements = append(main.Elements, bar[0]...)
		for i, o := range overlays {
			els := append([]abc.Element(nil), fields...)
			els = append(els, bar[i+1]...)
			if rest := length[0]; end != nil && len(bar[i+1]) == 0 && rest.Num > 0 {
				els = append(els, &abc.Rest{Span: abc.Span{Pos: end.Position(), End: end.Position().Offset},
					Kind: abc.RestInvisible, Duration: rest})
			}
			o.Elements = append(o.Elements, els...)
			if end != nil {
				o.Elements = append(o.Elements, end)
			}
		}
		if end != nil {
			main.Elements = append(main.Elements, end)
		}
		reset()
	}
	k = 0
	for _, el := range v.Elements {
		switch e := el.(type) {
		case *abc.Overlay:
			k = min(k+1, n)
			continue
		case *abc.BarLine, *abc.Ending:
			flush(el)
			k = 0
			continue
		case *abc.InlineField:
			if k == 0 && (e.Key != nil || e.Meter != nil || !e.Unit.IsZero()) {
				fields = append(fields, el)
			}
		case *abc.Note:
			length[k] = length[k].Add(e.Duration)
		case *abc.Chord:
			length[k] = length[k].Add(e.Duration)
		case *abc.Rest:
			length[k] = length[k].Add(e.Duration)
		}
		bar[k] = append(bar[k], el)
	}
	flush(nil)
	return main, overlays
}
