package audioservice

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/membudget"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

// bigHandler is a handler over a store that takes objects of up to maxObject bytes, with budget.
func bigHandler(t *testing.T, maxObject int64, budget *membudget.Budget) *Handler {
	t.Helper()
	store, err := cas.OpenDir(filepath.Join(t.TempDir(), "cas"), &cas.Options{MaxObjectSize: maxObject})
	if err != nil {
		t.Fatal(err)
	}
	db, _ := servicetest.Database(t)
	return New(Config{CAS: store, Artifacts: artifacts.NewStore(db), Budget: budget})
}

// putStream stores what r yields and returns its hash, without holding it in memory.
func putStream(t *testing.T, h *Handler, r io.Reader, mimeType string) string {
	t.Helper()
	obj, _, err := h.cfg.CAS.Put(context.Background(), r, mimeType)
	if err != nil {
		t.Fatal(err)
	}
	return obj.Hash.String()
}

// pattern yields bytes that are not all alike: a slow ramp, as 16-bit samples.
type pattern struct{ n int }

func (p *pattern) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte(p.n * 7 >> 3)
		p.n++
	}
	return len(b), nil
}

// sf2Stream is a SoundFont of one preset and one instrument over sampleBytes of samples, named
// with the given bytes (which need not be UTF-8), as a reader that holds only its tables.
func sf2Stream(sampleBytes int64, bankName, presetName, instName, sampleName []byte) (io.Reader, int64) {
	le := binary.LittleEndian
	fixed := func(s []byte, n int) []byte { b := make([]byte, n); copy(b, s); return b }
	sub := func(id string, body []byte) []byte {
		return append(append([]byte(id), le.AppendUint32(nil, uint32(len(body)))...), body...)
	}
	list := func(typ string, subs ...[]byte) []byte {
		body := []byte(typ)
		for _, s := range subs {
			body = append(body, s...)
		}
		return sub("LIST", body)
	}
	pair := func(a, b uint16) []byte { return le.AppendUint16(le.AppendUint16(nil, a), b) }
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	phdr := func(name []byte, bank, bag uint16) []byte {
		b := fixed(name, 20)
		b = le.AppendUint16(b, 0)
		b = le.AppendUint16(b, bank)
		b = le.AppendUint16(b, bag)
		return append(b, make([]byte, 12)...)
	}
	shdr := func(name []byte, end uint32, rate uint32) []byte {
		b := fixed(name, 20)
		for _, v := range []uint32{0, end, 0, end, rate} {
			b = le.AppendUint32(b, v)
		}
		return append(b, 60, 0, 0, 0, 1, 0)
	}
	points := uint32(min(sampleBytes/2-46, 1<<20))
	info := list("INFO", sub("ifil", pair(2, 1)), sub("INAM", fixed(bankName, 20)))
	pdta := list("pdta",
		sub("phdr", cat(phdr(presetName, 0, 0), phdr([]byte("EOP"), 0, 1))),
		sub("pbag", cat(pair(0, 0), pair(1, 0))),
		sub("pmod", make([]byte, 10)),
		sub("pgen", cat(pair(41, 0), pair(0, 0))),
		sub("inst", cat(fixed(instName, 20), le.AppendUint16(nil, 0), fixed([]byte("EOI"), 20), le.AppendUint16(nil, 1))),
		sub("ibag", cat(pair(0, 0), pair(1, 0))),
		sub("imod", make([]byte, 10)),
		sub("igen", cat(pair(53, 0), pair(0, 0))),
		sub("shdr", cat(shdr(sampleName, points, 44100), shdr([]byte("EOS"), 0, 0))),
	)
	sdtaHead := cat([]byte("LIST"), le.AppendUint32(nil, uint32(4+8+sampleBytes)), []byte("sdta"), []byte("smpl"), le.AppendUint32(nil, uint32(sampleBytes)))
	size := int64(len(info)+len(sdtaHead)+len(pdta)) + sampleBytes
	head := cat([]byte("RIFF"), le.AppendUint32(nil, uint32(size+4)), []byte("sfbk"), info, sdtaHead)
	return io.MultiReader(bytes.NewReader(head), io.LimitReader(&pattern{}, sampleBytes), bytes.NewReader(pdta)), size + 12
}

// wavStream is a 16-bit stereo WAV of dataBytes at 44.1 kHz.
func wavStream(dataBytes int64) io.Reader {
	le := binary.LittleEndian
	h := []byte("RIFF")
	h = le.AppendUint32(h, uint32(36+dataBytes))
	h = append(h, "WAVEfmt "...)
	h = le.AppendUint32(h, 16)
	h = le.AppendUint16(h, 1)
	h = le.AppendUint16(h, 2)
	h = le.AppendUint32(h, 44100)
	h = le.AppendUint32(h, 44100*4)
	h = le.AppendUint16(h, 4)
	h = le.AppendUint16(h, 16)
	h = append(h, "data"...)
	h = le.AppendUint32(h, uint32(dataBytes))
	return io.MultiReader(bytes.NewReader(h), io.LimitReader(&pattern{}, dataBytes))
}

// allocated returns the bytes f allocates on the heap, all of them, freed or not: a bound on
// how far its heap rose. The tests that use it run alone (not in parallel).
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestAttackSoundFontInspectMemory: a SoundFont whose bulk is samples is described with memory
// for its tables, not its samples (it was read whole, and its samples copied: 1.1 GB for one of
// 250 MB).
func TestAttackSoundFontInspectMemory(t *testing.T) {
	const samples = 160 << 20
	h := bigHandler(t, 256<<20, membudget.New(1<<30))
	r, size := sf2Stream(samples, []byte("Big"), []byte("Piano"), []byte("Grand"), []byte("C4"))
	hash := putStream(t, h, r, "audio/x-sf2")
	var res *hootv1.SoundfontInspectResult
	var err error
	n := allocated(func() {
		res, err = h.SoundfontInspect(context.Background(), &hootv1.SoundfontInspectRequest{Source: &hootv1.SoundfontInspectRequest_Hash{Hash: hash}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetSamplePoints() != samples/2 || len(res.GetPresets()) != 1 || res.GetPresets()[0].GetInstruments()[0] != "Grand" {
		t.Fatalf("result %v", res)
	}
	ratio := float64(n) / float64(size)
	t.Logf("soundfont_inspect of %d MiB allocated %d KiB (%.4f of the file)", size>>20, n>>10, ratio)
	if ratio > 0.25 {
		t.Errorf("soundfont_inspect allocated %d bytes for a SoundFont of %d, more than a quarter", n, size)
	}
}

// TestAttackAudioInfoMemory: audio_info measures a WAV a block at a time (it was decoded
// whole: 580 MB for 127 MiB of WAV).
func TestAttackAudioInfoMemory(t *testing.T) {
	const data = 100 << 20
	h := bigHandler(t, MaxAudioBytes, membudget.New(1<<30))
	hash := putStream(t, h, wavStream(data), WAVMediaType)
	var res *hootv1.AudioInfoResult
	var err error
	n := allocated(func() {
		res, err = h.AudioInfo(context.Background(), &hootv1.AudioInfoRequest{Source: &hootv1.AudioInfoRequest_Hash{Hash: hash}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetFrames() != data/4 || res.GetChannels() != 2 || res.GetPeakDbfs() < -1 {
		t.Fatalf("result %v", res)
	}
	ratio := float64(n) / float64(data)
	t.Logf("audio_info of %d MiB of WAV allocated %d KiB (%.4f of the file)", data>>20, n>>10, ratio)
	if ratio > 0.05 {
		t.Errorf("audio_info allocated %d bytes for %d of WAV, more than 5%%", n, data)
	}
}

func overloaded(err error) *hooteproto.Error {
	var he *hooteproto.Error
	if errors.As(err, &he) && he.Code() == hooteproto.CodeOverloaded {
		return he
	}
	return nil
}

// TestAttackHeavyCallsBeyondBudgetAreBusy: calls that do not fit beside what runs are refused
// at once as busy, saying what they need and what there is; calls that could never fit say
// what to change (they all ran before, up to the count of calls, and the machine's memory was
// the limit).
func TestAttackHeavyCallsBeyondBudgetAreBusy(t *testing.T) {
	ctx := context.Background()
	budget := membudget.New(64 << 20)
	h := bigHandler(t, 256<<20, budget)
	r, _ := sf2Stream(32<<20, []byte("Big"), []byte("Piano"), []byte("Grand"), []byte("C4"))
	sf := putStream(t, h, r, "audio/x-sf2")
	wav := putStream(t, h, wavStream(1<<20), WAVMediaType)
	inspect := func() error {
		_, err := h.SoundfontInspect(ctx, &hootv1.SoundfontInspectRequest{Source: &hootv1.SoundfontInspectRequest_Hash{Hash: sf}})
		return err
	}
	info := func() error {
		_, err := h.AudioInfo(ctx, &hootv1.AudioInfoRequest{Source: &hootv1.AudioInfoRequest_Hash{Hash: wav}})
		return err
	}

	// Other calls hold most of the budget.
	held, err := budget.Acquire("other calls", 60<<20, "")
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{"soundfont_inspect": inspect, "audio_info": info} {
		err := call()
		he := overloaded(err)
		if he == nil || he.RetryAfter() <= 0 || !strings.Contains(he.Message(), name+" needs about") ||
			!strings.Contains(he.Message(), "4 MiB (4194304 bytes) free of its 64 MiB") || !strings.Contains(he.Hint(), "retry") {
			t.Errorf("%s beside other calls: %v, want busy with what it needs and what is free", name, err)
		}
	}
	held()
	for name, call := range map[string]func() error{"soundfont_inspect": inspect, "audio_info": info} {
		if err := call(); err != nil {
			t.Errorf("%s alone: %v", name, err)
		}
	}

	// Many at once: each runs or is refused as busy, and nothing stays reserved.
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Go(func() { errs[i] = inspect() })
	}
	wg.Wait()
	ran := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ran++
		case overloaded(err) == nil:
			t.Errorf("a call at once: %v, want success or busy", err)
		}
	}
	if ran == 0 || budget.InUse() != 0 {
		t.Errorf("%d of 12 ran; %d bytes still reserved", ran, budget.InUse())
	}

	// A render larger than the whole budget says so, and what to change.
	id := putMIDI(t, h, longMIDI(t, 300))
	_, err = h.MidiRender(ctx, &hootv1.MidiRenderRequest{Source: &hootv1.MidiRenderRequest_Hash{Hash: id}})
	var he *hooteproto.Error
	if !errors.As(err, &he) || he.Code() != hooteproto.CodeInvalidArgument || !strings.Contains(he.Message(), "whole budget") ||
		!strings.Contains(he.Hint(), "shorter") {
		t.Errorf("a render larger than the budget: %v", err)
	}
}

// longMIDI is a MIDI file of one note that lasts seconds, at 120 quarter notes a minute.
func longMIDI(t *testing.T, seconds int) []byte {
	t.Helper()
	b, err := midi.Encode(midi.File{Format: 0, TicksPerQuarter: 480, Tracks: []midi.Track{{Events: []midi.Event{
		midi.NoteOn(0, 0, 60, 90), midi.NoteOff(int64(seconds)*2*480, 0, 60, 0),
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func putMIDI(t *testing.T, h *Handler, b []byte) string {
	t.Helper()
	return putStream(t, h, bytes.NewReader(b), "audio/midi")
}

// TestAttackLongRenderRefusedBeforeRendering: a render the content store would not take is
// refused before it is rendered, with what to change (it was rendered, up to 128 MiB, and then
// refused by the 64 MiB store).
func TestAttackLongRenderRefusedBeforeRendering(t *testing.T) {
	ctx := context.Background()
	h := newHandler(t, "")
	for _, tc := range []struct {
		seconds int
		format  string
		hint    string
	}{
		{400, "wav", `format "flac"`},
		{900, "flac", "shorter piece"},
	} {
		hash := putMIDI(t, h, longMIDI(t, tc.seconds))
		var err error
		n := allocated(func() {
			_, err = h.MidiRender(ctx, &hootv1.MidiRenderRequest{Source: &hootv1.MidiRenderRequest_Hash{Hash: hash}, Format: tc.format})
		})
		var he *hooteproto.Error
		if !errors.As(err, &he) || he.Code() != hooteproto.CodeInvalidArgument || !strings.Contains(he.Message(), "the content store takes") ||
			!strings.Contains(he.Hint(), tc.hint) || !strings.Contains(he.Hint(), "sample_rate") {
			t.Errorf("%d s of %s: %v", tc.seconds, tc.format, err)
		}
		// Rendering would have allocated the samples: 8 bytes a frame, 140 MB and more.
		if n > 16<<20 {
			t.Errorf("%d s of %s: %d bytes allocated before the refusal; it was rendered", tc.seconds, tc.format, n)
		}
	}
	// What the store takes still renders: 20 s at 22050 Hz.
	hash := putMIDI(t, h, longMIDI(t, 20))
	if _, err := h.MidiRender(ctx, &hootv1.MidiRenderRequest{Source: &hootv1.MidiRenderRequest_Hash{Hash: hash}, SampleRate: 22050}); err != nil {
		t.Errorf("20 s: %v", err)
	}
}

// TestAttackLatin1SoundFontNames: names that are not UTF-8 come back as valid UTF-8 (they
// failed the call with an internal error, as protobuf strings must be UTF-8).
func TestAttackLatin1SoundFontNames(t *testing.T) {
	h := newHandler(t, "")
	r, _ := sf2Stream(4096, []byte("Caf\xe9"), []byte("Fl\xfbte \x93douce\x94"), []byte("Clavec\xedn"), []byte("\xc0 vide"))
	hash := putStream(t, h, r, "audio/x-sf2")
	res, err := h.SoundfontInspect(context.Background(), &hootv1.SoundfontInspectRequest{Source: &hootv1.SoundfontInspectRequest_Hash{Hash: hash}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := proto.Marshal(res); err != nil {
		t.Fatalf("the result does not encode: %v", err)
	}
	p := res.GetPresets()[0]
	if res.GetName() != "Café" || p.GetName() != "Flûte “douce”" || p.GetInstruments()[0] != "Clavecín" || res.GetInstruments()[0] != "Clavecín" {
		t.Errorf("names %q, %q, %q", res.GetName(), p.GetName(), p.GetInstruments())
	}
}

// TestKeptSoundFontIsReserved: the SoundFont kept for the next render holds its share of the
// budget while it is kept, and gives it back when another takes its place.
func TestKeptSoundFontIsReserved(t *testing.T) {
	ctx := context.Background()
	budget := membudget.New(256 << 20)
	h := bigHandler(t, 64<<20, budget)
	tune := putMIDI(t, h, longMIDI(t, 1))
	render := func(sf string) {
		t.Helper()
		if _, err := h.MidiRender(ctx, &hootv1.MidiRenderRequest{Source: &hootv1.MidiRenderRequest_Hash{Hash: tune},
			Soundfont: &hootv1.MidiRenderRequest_SoundfontHash{SoundfontHash: sf}, SampleRate: 16000}); err != nil {
			t.Fatal(err)
		}
	}
	r, size1 := sf2Stream(1<<20, []byte("One"), []byte("Piano"), []byte("Grand"), []byte("C4"))
	one := putStream(t, h, r, "audio/x-sf2")
	r, size2 := sf2Stream(2<<20, []byte("Two"), []byte("Organ"), []byte("Pipe"), []byte("C4"))
	two := putStream(t, h, r, "audio/x-sf2")
	render(one)
	if got := budget.InUse(); got != size1 {
		t.Errorf("after a render with the first SoundFont, %d bytes reserved; want its %d", got, size1)
	}
	render(two)
	if got := budget.InUse(); got != size2 {
		t.Errorf("after a render with the second SoundFont, %d bytes reserved; want its %d", got, size2)
	}
}
