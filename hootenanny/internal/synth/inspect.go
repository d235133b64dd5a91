package synth

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hootenanny/hoot/hootenanny/internal/textenc"
)

// DrumBank is the bank that holds General MIDI drum kits.
const DrumBank = 128

// Bounds on what InspectFile reads: the INFO list (names and comments) and the pdta list (the
// presets, instruments and sample headers; its tables are indexed by 16 bits, so about 10 MB at
// most in a well-formed file). The sample data is never read.
const (
	MaxInfoBytes = 1 << 20
	MaxPdtaBytes = 16 << 20
)

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

// InspectFile describes the SoundFont r holds, size bytes, reading only what it describes: the
// INFO and pdta lists, and the chunk headers of the sdta list, whose samples it skips. So it
// needs memory for the names and tables, not for the samples, which are most of a SoundFont. A
// malformed file gives a *FormatError. Names are made valid UTF-8 (package textenc).
func InspectFile(r io.ReadSeeker, size int64) (Info, error) {
	rd := riffReader{r: r, size: size}
	head, err := rd.at(0, 12)
	if err != nil || string(head[0:4]) != "RIFF" || string(head[8:12]) != "sfbk" {
		return Info{}, formatErr("it does not start with a RIFF sfbk header")
	}
	off := int64(12)
	var infoSubs, pdtaSubs []chunk
	samples := int64(-1)
	for _, want := range []string{"INFO", "sdta", "pdta"} {
		h, err := rd.at(off, 12)
		if err != nil {
			return Info{}, formatErr("the %s list is missing", want)
		}
		if string(h[0:4]) != "LIST" {
			return Info{}, formatErr("found the chunk %q where the LIST %s should be", h[0:4], want)
		}
		n := int64(binary.LittleEndian.Uint32(h[4:8]))
		if n < 4 || n > size-off-8 {
			return Info{}, formatErr("the LIST %s claims %d bytes, but %d follow", want, n, size-off-8)
		}
		if got := string(h[8:12]); got != want {
			return Info{}, formatErr("found the LIST %q where %s should be", got, want)
		}
		body, bodySize := off+12, n-4
		switch want {
		case "INFO", "pdta":
			limit := int64(MaxInfoBytes)
			if want == "pdta" {
				limit = MaxPdtaBytes
			}
			if bodySize > limit {
				return Info{}, formatErr("the %s list is %d bytes, more than the %d read", want, bodySize, limit)
			}
			b, err := rd.at(body, int(bodySize))
			if err != nil {
				return Info{}, err
			}
			subs, err := subChunks(want, b)
			if err != nil {
				return Info{}, err
			}
			if want == "INFO" {
				infoSubs = subs
			} else {
				pdtaSubs = subs
			}
		case "sdta":
			if samples, err = rd.sampleData(body, bodySize); err != nil {
				return Info{}, err
			}
		}
		off += 8 + n
	}
	if samples < 0 {
		return Info{}, formatErr("it has no sample data (smpl)")
	}
	if err := checkPdta(pdtaSubs, samples); err != nil {
		return Info{}, err
	}
	info := describe(pdtaSubs)
	info.SamplePoints = samples
	for _, c := range infoSubs {
		switch c.id {
		case "ifil":
			if len(c.body) >= 4 {
				info.Version = fmt.Sprintf("%d.%02d", binary.LittleEndian.Uint16(c.body[0:2]), binary.LittleEndian.Uint16(c.body[2:4]))
			}
		case "INAM":
			info.Name = cleanName(c.body)
		}
	}
	if info.Version == "" {
		info.Version = "0.00"
	}
	return info, nil
}

// riffReader reads parts of a file of size bytes.
type riffReader struct {
	r    io.ReadSeeker
	size int64
}

// at reads n bytes at off.
func (rd riffReader) at(off int64, n int) ([]byte, error) {
	if off < 0 || n < 0 || off+int64(n) > rd.size {
		return nil, formatErr("it ends at byte %d, inside a chunk that runs to %d", rd.size, off+int64(n))
	}
	if _, err := rd.r.Seek(off, io.SeekStart); err != nil {
		return nil, err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(rd.r, b); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, formatErr("it ends before byte %d", off+int64(n))
		}
		return nil, err
	}
	return b, nil
}

// sampleData walks the sub-chunk headers of the sdta list's body (at off, n bytes), skipping
// their contents, and returns the 16-bit sample points of its smpl chunk, or -1 without one.
func (rd riffReader) sampleData(off, n int64) (int64, error) {
	samples := int64(-1)
	for pos := int64(0); pos < n; {
		if pos+8 > n {
			return 0, formatErr("the sdta list ends inside a chunk header")
		}
		h, err := rd.at(off+pos, 8)
		if err != nil {
			return 0, err
		}
		id := string(h[0:4])
		size := int64(binary.LittleEndian.Uint32(h[4:8]))
		if size > n-pos-8 {
			return 0, formatErr("the sdta chunk %q claims %d bytes, but %d follow", id, size, n-pos-8)
		}
		if size%2 != 0 {
			return 0, formatErr("the sdta chunk %q has an odd size, %d", id, size)
		}
		switch id {
		case "smpl":
			samples = size / 2
		case "sm24":
		default:
			return 0, formatErr("the sdta list holds an unknown chunk %q", id)
		}
		pos += 8 + size
	}
	return samples, nil
}

// A zone is the generators of one preset or instrument zone: the instrument or sample it
// plays and the keys it covers, with the defaults of SoundFont 2.04 (every key, and index 0).
type zone struct {
	index  int
	lo, hi int
}

// zones reads the zones of each header of a pdta header table (records of recSize bytes whose
// bag index is at bagField) as the synthesiser does: a first zone whose last generator is not
// indexGen is global, its generators the base of the others.
func zones(hdr []byte, recSize, bagField int, bags, gens []byte, indexGen int) [][]zone {
	u16 := func(b []byte, at int) int { return int(binary.LittleEndian.Uint16(b[at : at+2])) }
	n := len(hdr)/recSize - 1
	out := make([][]zone, n)
	for i := range n {
		first, last := u16(hdr, i*recSize+bagField), u16(hdr, (i+1)*recSize+bagField)
		apply := func(z *zone, g0, g1 int) {
			for g := g0; g < g1; g++ {
				op, amount := u16(gens, g*4), u16(gens, g*4+2)
				switch op {
				case 43: // keyRange
					z.lo, z.hi = amount&0xFF, amount>>8&0xFF
				case indexGen:
					z.index = int(int16(amount))
				}
			}
		}
		global := zone{lo: 0, hi: 127}
		for b := first; b < last; b++ {
			g0, g1 := u16(bags, b*4), u16(bags, (b+1)*4)
			if b == first && (g1 == g0 || u16(gens, (g1-1)*4) != indexGen) {
				apply(&global, g0, g1)
				continue
			}
			z := global
			apply(&z, g0, g1)
			out[i] = append(out[i], z)
		}
	}
	return out
}

// describe reads the presets, instruments and samples of a pdta list that checkPdta passed.
func describe(subs []chunk) Info {
	t := map[string][]byte{}
	for _, c := range subs {
		t[c.id] = c.body
	}
	var info Info
	instNames := make([]string, len(t["inst"])/22-1)
	for i := range instNames {
		instNames[i] = cleanName(t["inst"][i*22 : i*22+20])
	}
	info.Instruments = instNames
	info.Samples = len(t["shdr"])/46 - 1
	sampleName := func(i int) string { return cleanName(t["shdr"][i*46 : i*46+20]) }
	instZones := zones(t["inst"], 22, 20, t["ibag"], t["igen"], genSampleID)
	presetZones := zones(t["phdr"], 38, 24, t["pbag"], t["pgen"], genInstrument)
	phdr := t["phdr"]
	for i, zs := range presetZones {
		r := phdr[i*38 : (i+1)*38]
		p := Preset{
			Name:    cleanName(r[:20]),
			Program: int(binary.LittleEndian.Uint16(r[20:22])),
			Bank:    int(binary.LittleEndian.Uint16(r[22:24])),
		}
		seen := map[string]bool{}
		for _, z := range zs {
			if z.index < 0 || z.index >= len(instNames) || seen[instNames[z.index]] {
				continue
			}
			seen[instNames[z.index]] = true
			p.Instruments = append(p.Instruments, instNames[z.index])
		}
		info.Presets = append(info.Presets, p)
		if p.Bank != DrumBank {
			continue
		}
		kit := DrumKit{Program: p.Program, Name: p.Name}
		for key := range 128 {
		zones:
			for _, z := range zs {
				if z.index < 0 || z.index >= len(instNames) || key < z.lo || key > z.hi {
					continue
				}
				for _, iz := range instZones[z.index] {
					if key < iz.lo || key > iz.hi || iz.index < 0 || iz.index >= info.Samples {
						continue
					}
					kit.Keys = append(kit.Keys, DrumKey{Key: key, Instrument: instNames[z.index], Sample: sampleName(iz.index)})
					break zones
				}
			}
		}
		info.DrumKits = append(info.DrumKits, kit)
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

// cleanName reads a name field: up to its first NUL, as valid UTF-8, without surrounding space.
func cleanName(b []byte) string {
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	return strings.TrimSpace(textenc.UTF8(b))
}
