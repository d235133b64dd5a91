package audioservice

import (
	"context"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/synth"
)

// SoundfontInspect describes a stored SoundFont, or the default one.
func (h *Handler) SoundfontInspect(ctx context.Context, req *hootv1.SoundfontInspectRequest) (*hootv1.SoundfontInspectResult, error) {
	var (
		sf   *synth.SoundFont
		name string
		err  error
	)
	if fd, value := sourceField(req, "source"); fd != nil {
		field := string(fd.Name())
		sf, err = h.storedSoundFont(ctx, field, kindOf(field), value)
		name = value
	} else {
		sf, name, err = h.defaultSoundFont("artifact_id")
	}
	if err != nil {
		return nil, err
	}
	info := sf.Inspect()
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
