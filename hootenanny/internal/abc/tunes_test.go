package abc

// Tunes written for these tests.

const reel = `X:1
T:The Lantern Road
R:reel
C:Test Composer
O:Nowhere
M:4/4
L:1/8
Q:1/4=112
K:D
|:"D"A2FA DAFA|"G"B2GB dBGB|"D"A2FA DAFA|"A"BcdB A2FE:|
|:"D"d2fd adfd|"Em"e2ge bege|"D"d2fd "G"B2dB|1"A"A2FA "D"D4:|2"A"AFEF "D"D4|]
`

const jig = `X:2
T:Crooked Stile
R:jig
M:6/8
K:G
% the A part
|:G3 GAB|A>BA AGE|"C"c2e "D"dBG|1 AGE D3:|2 AGE G3||
|:~g3 gfe|(dBG) {a}g2e|{/f}dBG "Am"ABc|1 BAG A2D:|2 BAG G3|]
`

const multiVoice = `X:3
T:Two Voices
M:3/4
L:1/4
Q:"Andante" 1/4=80
V:S clef=treble name="Soprano" snm="S"
V:B clef=bass name="Bass"
K:F
V:S
A B c|d2 c|[K:Bb]B A G|F3|]
w:Sing a song of six-pence now
V:B
F,, C, F,|B,,2 F,|G,, C, C,|F,,3|]
`

const tuplets = `X:4
T:Threes and Twos
M:2/4
L:1/8
K:Am
(3ABc (3def|(2ab c|(3:2:2c2d e2|(5ABcde f2|a4|]
`

const keyChange = `X:5
T:Changing Keys
M:3/4
L:1/8
K:C
CDEF GA|B2 c4|
K:A mixolydian
ABcd ef|g2 a4|[K:Eb]EFGA Bc|=B2 _B2 B2|]
`

const chords = `X:6
T:Block Chords
M:C|
L:1/4
K:Bb
[B,DF]2 [CEG]2|[DFA]>[EG] [FAc]2-|[FAc]4|]
`

const lyrics = `X:7
T:A Little Song
M:3/4
L:1/4
K:G
W:Words printed after the tune
G A B|c2 B|A>B A|G3|]
w:Here we go a-round the town, a-round we go
`

const broken = `X:8
T:Hornpipe Steps
R:hornpipe
M:C
L:1/8
K:Em
E>FG>A B<cd>>B|e2 z2 Z2|]
`

var allTunes = []string{reel, jig, multiVoice, tuplets, keyChange, chords, lyrics, broken}

var book = reel + "\n" + jig + "\n" + multiVoice + "\n" + tuplets + "\n" + keyChange + "\n" + chords + "\n" + lyrics + "\n" + broken
