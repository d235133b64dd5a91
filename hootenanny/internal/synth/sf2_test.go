package synth

import (
	"encoding/binary"
	"math"
)

// testSF2 builds a small SoundFont: preset 0 of bank 0 ("Sine", a looped 440 Hz sine over every
// key) and preset 0 of bank 128 ("Kit", a decaying click on keys 35 to 40).
func testSF2() []byte {
	le := binary.LittleEndian
	str := func(s string, n int) []byte { b := make([]byte, n); copy(b, s); return b }
	sub := func(id string, body []byte) []byte {
		b := append([]byte(id), le.AppendUint32(nil, uint32(len(body)))...)
		return append(b, body...)
	}
	list := func(typ string, subs ...[]byte) []byte {
		body := []byte(typ)
		for _, s := range subs {
			body = append(body, s...)
		}
		return sub("LIST", body)
	}
	var smpl []byte
	for i := range 1000 {
		smpl = le.AppendUint16(smpl, uint16(int16(12000*math.Sin(2*math.Pi*float64(i)/100))))
	}
	smpl = append(smpl, make([]byte, 92)...)
	for i := range 2000 {
		v := 20000 * math.Exp(-float64(i)/200) * math.Sin(float64(i)*1.3)
		smpl = le.AppendUint16(smpl, uint16(int16(v)))
	}
	smpl = append(smpl, make([]byte, 92)...)
	phdr := func(name string, program, bank, bag uint16) []byte {
		b := str(name, 20)
		b = le.AppendUint16(b, program)
		b = le.AppendUint16(b, bank)
		b = le.AppendUint16(b, bag)
		return append(b, make([]byte, 12)...)
	}
	pair := func(a, b uint16) []byte { return le.AppendUint16(le.AppendUint16(nil, a), b) }
	inst := func(name string, bag uint16) []byte { return le.AppendUint16(str(name, 20), bag) }
	shdr := func(name string, start, end, loopStart, loopEnd, rate uint32, pitch uint8) []byte {
		b := str(name, 20)
		for _, v := range []uint32{start, end, loopStart, loopEnd, rate} {
			b = le.AppendUint32(b, v)
		}
		return append(b, pitch, 0, 0, 0, 1, 0)
	}
	cat := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	info := list("INFO", sub("ifil", pair(2, 1)), sub("INAM", str("Test Font", 10)))
	sdta := list("sdta", sub("smpl", smpl))
	pdta := list("pdta",
		sub("phdr", cat(phdr("Sine", 0, 0, 0), phdr("Kit", 0, 128, 1), phdr("EOP", 0, 0, 2))),
		sub("pbag", cat(pair(0, 0), pair(1, 0), pair(2, 0))),
		sub("pmod", make([]byte, 10)),
		sub("pgen", cat(pair(genInstrument, 0), pair(genInstrument, 1), pair(0, 0))),
		sub("inst", cat(inst("SineInst", 0), inst("Click", 1), inst("EOI", 2))),
		sub("ibag", cat(pair(0, 0), pair(3, 0), pair(6, 0))),
		sub("imod", make([]byte, 10)),
		sub("igen", cat(
			pair(43, 0|127<<8), pair(54, 1), pair(genSampleID, 0),
			pair(43, 35|40<<8), pair(48, 0), pair(genSampleID, 1),
			pair(0, 0))),
		sub("shdr", cat(
			shdr("Sine", 0, 1000, 100, 900, 44000, 69),
			shdr("ClickSample", 1046, 3046, 1046, 3046, 44100, 60),
			shdr("EOS", 0, 0, 0, 0, 0, 0))),
	)
	body := cat([]byte("sfbk"), info, sdta, pdta)
	return cat([]byte("RIFF"), le.AppendUint32(nil, uint32(len(body))), body)
}
