package synth

import (
	"fmt"
	"github.com/sinshu/go-meltysynth/meltysynth"
	"sort"
	"strings"
)

// DrumBank is the bank that holds General MIDI drum kits.
const DrumBank = 128

// Info describes a SoundFont.
type Info struct {
	Name    string
	Version string
	// Presets in bank and program order.
	Presets []Preset
	// Instruments by name, in file order.
	Instruments []string
	// Samples is the number of sample headers; SamplePoints the 16-bit points of all of them.
	Samples      int
	SamplePoints int64
	// DrumKits are the presets of DrumBank, in program order.
	DrumKits []DrumKit
}

// Preset is one preset.
type Preset struct {
	Bank, Program int
	Name          string
	// Instruments the preset plays, by name, each once, in the order of its zones.
	Instruments []string
}

// A DrumKit is a preset of DrumBank with what each of its keys plays.
type DrumKit struct {
	Program int
	Name    string
	Keys    []DrumKey
}

// A DrumKey is what one key of a drum kit plays: the instrument, and the sample it sounds
// (drum kits often hold one instrument whose samples are the drums).
type DrumKey struct {
	Key        int
	Instrument string
	Sample     string
}

// Inspect describes s.
func (s *SoundFont) Inspect() Info {
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
			info.DrumKits = append(info.DrumKits, drumKit(pr, p.Regions))
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
func drumKit(p Preset, regions []*meltysynth.PresetRegion) DrumKit {
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
