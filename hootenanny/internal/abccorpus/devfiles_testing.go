package abccorpus

import "testing"

// DevFilesOrSkip reads the development corpus for a test: every file of DevFiles, or a skip
// that says where the corpus goes, followed by what still runs without it (the test's own
// note, such as " (the project's own tunes are compared by TestAgreement)"). A corpus that is
// there but cannot be read fails the test.
func DevFilesOrSkip(t testing.TB, note string) []DevFile {
	t.Helper()
	dir, ok := DevCorpusDir()
	if !ok {
		t.Skipf("no development corpus: set %s or place it at ../%s%s", DevCorpusEnv, devCorpusRel, note)
	}
	files, err := DevFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	return files
}
