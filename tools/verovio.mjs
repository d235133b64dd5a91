// verovio.mjs opens MusicXML files in Verovio, an engraving library (the npm package verovio,
// pinned in package.json), and prints what it made of each, so that the tests of abc_to_musicxml
// can check the documents with a real notation program and not only against the schema.
//
//   node tools/verovio.mjs FILE...
//
// prints one JSON object: {"version": Verovio's version, "files": [one summary per FILE]}, each
//   file      the path given
//   loaded    whether Verovio loaded the document
//   log       Verovio's own messages while loading, laying out and rendering (warnings, errors)
//   pages     the pages of the engraving, each rendered to SVG
//   svgNotes  the notes drawn in those SVG pages
//   notes     the notes Verovio read, in the order of its MEI (measure by measure, staff by
//             staff, layer by layer): {m: the measure's ordinal from 0, staff, layer, pitch: the
//             MIDI key Verovio plays, onset: in quarter notes from the start (repeats not played
//             out; null for a note the timemap leaves out), grace: true for a grace note}
//   error     why the file could not be read, when it could not
//
// Verovio runs as WebAssembly inside node: nothing is fetched, nothing is installed beyond
// node_modules. Exit status 2 for a usage error; 0 otherwise, whatever Verovio thought of the
// files (the summaries say).
import createVerovioModule from 'verovio/wasm';
import { VerovioToolkit, enableLog, enableLogToBuffer, LOG_WARNING } from 'verovio/esm';
import fs from 'node:fs';

// The documents abc_to_musicxml writes are at most 32 MiB (musicxml.MaxBytes).
const maxBytes = 32 << 20;
const maxPages = 1000;

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: node tools/verovio.mjs FILE... (MusicXML documents to open)\n');
  process.exit(2);
}

const module = await createVerovioModule();
enableLogToBuffer(1, module);
enableLog(LOG_WARNING, module);
const tk = new VerovioToolkit(module);
// The documents are MusicXML (not sniffed); repeats are not played out: each note has one onset,
// the one its place in the score gives; the ids are the same from run to run.
tk.setOptions({ inputFrom: 'xml', expandNever: true, xmlIdSeed: 1 });

const logLines = () => tk.getLog().split('\n').map((s) => s.trim()).filter((s) => s !== '');

function summarize(file) {
  const out = { file, loaded: false, log: [], pages: 0, svgNotes: 0, notes: [] };
  let data;
  try {
    const st = fs.statSync(file);
    if (st.size > maxBytes) {
      out.error = `the file has ${st.size} bytes, more than the ${maxBytes} read`;
      return out;
    }
    data = fs.readFileSync(file, 'utf8');
  } catch (err) {
    out.error = String(err);
    return out;
  }
  logLines(); // what an earlier file left
  out.loaded = Boolean(tk.loadData(data));
  out.log.push(...logLines());
  if (!out.loaded) {
    return out;
  }
  out.pages = tk.getPageCount();
  for (let p = 1; p <= Math.min(out.pages, maxPages); p++) {
    const svg = tk.renderToSVG(p);
    out.svgNotes += (svg.match(/<g [^>]*class="note\b/g) || []).length;
  }
  const onsets = new Map();
  for (const ev of tk.renderToTimemap({ includeRests: false, includeMeasures: false })) {
    for (const id of ev.on || []) {
      if (!onsets.has(id)) onsets.set(id, ev.qstamp);
    }
  }
  out.notes = notesOf(tk.getMEI({}), onsets);
  out.log.push(...logLines());
  return out;
}

// notesOf walks the start and end tags of Verovio's own MEI (well-formed, written by the
// toolkit) for the notes in their measures, staves and layers.
function notesOf(mei, onsets) {
  const notes = [];
  let m = -1;
  let staff = 0;
  let layer = 0;
  let graceChord = false; // a chord of grace notes, which carries grace for its notes
  for (const t of mei.matchAll(/<(\/?)([A-Za-z]+)((?:[^>"]|"[^"]*")*)>/g)) {
    const [, end, name, attrs] = t;
    if (end) {
      if (name === 'chord') graceChord = false;
      continue;
    }
    const attr = (a) => {
      const x = attrs.match(new RegExp(`\\s${a.replace('.', '\\.')}="([^"]*)"`));
      return x ? x[1] : '';
    };
    switch (name) {
      case 'measure':
        m++;
        break;
      case 'staff':
        staff = Number(attr('n'));
        break;
      case 'layer':
        layer = Number(attr('n'));
        break;
      case 'chord':
        graceChord = attr('grace') !== '' && !attrs.endsWith('/');
        break;
      case 'note': {
        const id = attr('xml:id');
        const midi = tk.getMIDIValuesForElement(id);
        notes.push({
          m, staff, layer,
          pitch: midi && typeof midi.pitch === 'number' ? midi.pitch : null,
          onset: onsets.has(id) ? onsets.get(id) : null,
          grace: graceChord || attr('grace') !== '',
        });
        break;
      }
    }
  }
  return notes;
}

const result = { version: tk.getVersion(), files: files.map(summarize) };
process.stdout.write(JSON.stringify(result) + '\n');
