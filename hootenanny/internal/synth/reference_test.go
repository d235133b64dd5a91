package synth

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sinshu/go-meltysynth/meltysynth"
)

// inspectLoaded describes s as the synthesiser reads it: the reference the streaming
// InspectFile is held to.
func inspectLoaded(s *SoundFont) Info {
	m := s.sf
	info := Info{
		Name:         strings.TrimSpace(m.Info.BankName),
		Version:      fmt.Sprintf("%d.%02d", m.Info.Version.Major, m.Info.Version.Minor),
		Samples:      len(m.SampleHeaders),
		SamplePoints: int64(len(m.WaveData)),
	}
	for _, in := range m.Instruments {
		info.Instruments = append(info.Instruments, strings.TrimSpace(in.Name))
	}
	for _, p := range m.Presets {
		pr := Preset{Bank: int(p.BankNumber), Program: int(p.PatchNumber), Name: strings.TrimSpace(p.Name)}
		seen := map[string]bool{}
		for _, r := range p.Regions {
			if r.Instrument == nil {
				continue
			}
			n := strings.TrimSpace(r.Instrument.Name)
			if !seen[n] {
				seen[n] = true
				pr.Instruments = append(pr.Instruments, n)
			}
		}
		info.Presets = append(info.Presets, pr)
		if pr.Bank == DrumBank {
			info.DrumKits = append(info.DrumKits, drumKitLoaded(pr, p.Regions))
		}
	}
	sort.SliceStable(info.Presets, func(i, j int) bool {
		a, b := info.Presets[i], info.Presets[j]
		if a.Bank != b.Bank {
			return a.Bank < b.Bank
		}
		return a.Program < b.Program
	})
	sort.SliceStable(info.DrumKits, func(i, j int) bool { return info.DrumKits[i].Program < info.DrumKits[j].Program })
	return info
}

// drumKit maps each key to the first instrument zone that plays it at full velocity.
func drumKitLoaded(p Preset, regions []*meltysynth.PresetRegion) DrumKit {
	kit := DrumKit{Program: p.Program, Name: p.Name}
	for key := int32(0); key < 128; key++ {
	zones:
		for _, r := range regions {
			if r.Instrument == nil || key < r.GetKeyRangeStart() || key > r.GetKeyRangeEnd() {
				continue
			}
			for _, ir := range r.Instrument.Regions {
				if key < ir.GetKeyRangeStart() || key > ir.GetKeyRangeEnd() || ir.Sample == nil {
					continue
				}
				kit.Keys = append(kit.Keys, DrumKey{
					Key:        int(key),
					Instrument: strings.TrimSpace(r.Instrument.Name),
					Sample:     strings.TrimSpace(ir.Sample.Name),
				})
				break zones
			}
		}
	}
	return kit
}
