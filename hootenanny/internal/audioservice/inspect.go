package audioservice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/synth"
	"github.com/hootenanny/hoot/hooteproto"
)

// soundFontInspectMemory is what soundfont_inspect holds of a SoundFont of size bytes: its
// INFO and pdta lists (bounded by synth.MaxInfoBytes and synth.MaxPdtaBytes), twice over for
// what is made of them. The samples, most of a SoundFont, are skipped.
func soundFontInspectMemory(size int64) int64 {
	return 2*min(size, synth.MaxInfoBytes+synth.MaxPdtaBytes) + 1<<20
}

// SoundfontInspect describes a stored SoundFont, or the default one, reading its names and
// tables and skipping its samples.
func (h *Handler) SoundfontInspect(ctx context.Context, req *hootv1.SoundfontInspectRequest) (*hootv1.SoundfontInspectResult, error) {
	var (
		r     io.ReadSeeker
		size  int64
		name  string
		field = "artifact_id"
	)
	if fd, value := sourceField(req, "source"); fd != nil {
		field = string(fd.Name())
		src, err := h.open(ctx, field, kindOf(field), value, synth.MaxBytes)
		if err != nil {
			return nil, err
		}
		defer src.r.Close()
		r, size, name = src.r, src.obj.Size, value
	} else {
		path, err := h.defaultSoundFontPath(field)
		if err != nil {
			return nil, err
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, h.internal("opening the default SoundFont", err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, h.internal("opening the default SoundFont", err)
		}
		r, size, name = f, st.Size(), path
	}
	release, err := h.cfg.Budget.Acquire("soundfont_inspect", soundFontInspectMemory(size), "")
	if err != nil {
		return nil, err
	}
	defer release()
	info, err := synth.InspectFile(r, size)
	if err != nil {
		var fe *synth.FormatError
		if errors.As(err, &fe) {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("%s is not a SoundFont that can be described: %v", name, err)).
				WithField(field).
				WithHint("name an SF2 SoundFont, or leave the source out to describe the worker's General MIDI default")
		}
		if ctx.Err() != nil {
			return nil, hooteproto.AsError(ctx.Err())
		}
		return nil, h.internal("reading the SoundFont", err)
	}
	out := &hootv1.SoundfontInspectResult{
		Source:           name,
		Name:             info.Name,
		Version:          info.Version,
		PresetsTotal:     uint32(len(info.Presets)),
		InstrumentsTotal: uint32(len(info.Instruments)),
		SampleCount:      uint32(info.Samples),
		SamplePoints:     uint64(info.SamplePoints),
	}
	for _, p := range info.Presets[:min(len(info.Presets), MaxListed)] {
		out.Presets = append(out.Presets, &hootv1.SoundfontPreset{
			Bank: uint32(p.Bank), Program: uint32(p.Program), Name: p.Name, Instruments: p.Instruments,
		})
	}
	out.Instruments = info.Instruments[:min(len(info.Instruments), MaxListed)]
	for _, k := range info.DrumKits[:min(len(info.DrumKits), 16)] {
		kit := &hootv1.SoundfontDrumKit{Program: uint32(k.Program), Name: k.Name}
		for _, key := range k.Keys {
			kit.Keys = append(kit.Keys, &hootv1.SoundfontDrumKey{Key: uint32(key.Key), Instrument: key.Instrument, Sample: key.Sample})
		}
		out.DrumKits = append(out.DrumKits, kit)
	}
	return out, nil
}
