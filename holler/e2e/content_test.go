package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestContentRoutes(t *testing.T) {
	t.Parallel()
	endpoint := startStack(t)
	base := strings.TrimSuffix(endpoint, "/mcp")
	c := newCaller(t, connectHTTP(t, endpoint))

	// PUT /cas streams an upload larger than any tool call takes (12 MiB of random bytes).
	big := make([]byte, 12<<20)
	rng := rand.NewChaCha8([32]byte{1})
	_, _ = rng.Read(big)
	sum := sha256.Sum256(big)
	want := hex.EncodeToString(sum[:])
	req, _ := http.NewRequest(http.MethodPut, base+"/cas", io.MultiReader(bytes.NewReader(big[:1<<20]), bytes.NewReader(big[1<<20:])))
	req.Header.Set("Content-Type", "audio/wav")
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var put map[string]any
	_ = json.NewDecoder(rsp.Body).Decode(&put)
	rsp.Body.Close()
	if rsp.StatusCode != http.StatusCreated || put["hash"] != want {
		t.Fatalf("PUT /cas = %d %v, want 201 and %s", rsp.StatusCode, put, want)
	}

	// The worker sees the upload, and an artifact made from it links to its content.
	res, err := c.s.CallTool(c.ctx, &mcp.CallToolParams{Name: "artifact_create", Arguments: map[string]any{"hash": want, "tags": []any{"render"}}})
	if err != nil || res.IsError {
		t.Fatalf("artifact_create = %v, %v", res, err)
	}
	id := toString(obj(res.StructuredContent, "artifact")["id"])
	var links []string
	for _, block := range res.Content {
		if l, ok := block.(*mcp.ResourceLink); ok {
			links = append(links, l.URI)
		}
	}
	if len(links) != 2 || links[0] != base+"/artifacts/"+id+"/content" || links[1] != base+"/cas/"+want {
		t.Errorf("resource links = %v", links)
	}

	get := func(url string, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rsp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer rsp.Body.Close()
		b, _ := io.ReadAll(rsp.Body)
		return rsp, b
	}
	rsp, body := get(base + "/artifacts/" + id + "/content")
	if rsp.StatusCode != 200 || !bytes.Equal(body, big) || rsp.Header.Get("Content-Type") != "audio/wav" || rsp.Header.Get("ETag") != `"`+want+`"` {
		t.Errorf("GET artifact content = %d, %d bytes, %v", rsp.StatusCode, len(body), rsp.Header)
	}
	rsp, body = get(base+"/cas/"+want, "Range", "bytes=100-199")
	if rsp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, big[100:200]) {
		t.Errorf("GET range = %d, %d bytes", rsp.StatusCode, len(body))
	}
	if rsp, _ := get(base+"/cas/"+want, "If-None-Match", `"`+want+`"`); rsp.StatusCode != http.StatusNotModified {
		t.Errorf("GET with the ETag = %d, want 304", rsp.StatusCode)
	}
	if rsp, body := get(base + "/cas/" + strings.Repeat("0", 64)); rsp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "cas_store") {
		t.Errorf("GET unknown object = %d %s", rsp.StatusCode, body)
	}
	if rsp, _ := get(base + "/cas/NOPE"); rsp.StatusCode != http.StatusBadRequest {
		t.Errorf("GET bad hash = %d", rsp.StatusCode)
	}
	if rsp, _ := get(base + "/artifacts/art_00000000000000000000000000/content"); rsp.StatusCode != http.StatusNotFound {
		t.Errorf("GET unknown artifact = %d", rsp.StatusCode)
	}
	// A long job stops when cancelled: checking the big object a thousand times over reads 12 GiB.
	hashes := make([]any, 1000)
	for i := range hashes {
		hashes[i] = want
	}
	long := toString(c.call("cas_verify", map[string]any{"hashes": hashes})["job_id"])
	deadline := time.Now().Add(30 * time.Second)
	for {
		j := obj(c.call("job_status", map[string]any{"id": long}), "job")
		if j["status"] == "JOB_STATUS_RUNNING" && j["progress"] != nil && j["progress"].(float64) > 0 {
			break
		}
		if time.Now().After(deadline) || j["status"] != "JOB_STATUS_RUNNING" && j["status"] != "JOB_STATUS_PENDING" {
			t.Fatalf("the long job never got going: %v", j)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancelled := obj(c.call("job_cancel", map[string]any{"id": long}), "job")
	if cancelled["status"] != "JOB_STATUS_CANCELLED" || obj(cancelled, "result", "error")["category"] != "ERROR_CATEGORY_CANCELLED" {
		t.Errorf("job_cancel = %v", cancelled)
	}
	time.Sleep(300 * time.Millisecond)
	after := obj(c.call("job_status", map[string]any{"id": long}), "job")
	if after["progress"] != cancelled["progress"] || after["progress"].(float64) >= 1000 {
		t.Errorf("the job went on after the cancel: %v, then %v", cancelled["progress"], after["progress"])
	}

	// Every object's bytes still match its hash.
	job := toString(c.call("cas_verify", map[string]any{"hashes": []any{want}})["job_id"])
	done := obj(list(c.call("job_await", map[string]any{"ids": []any{job}})["jobs"])[0])
	if v := obj(done, "result", "cas_verify"); jsonNumber(v["bytes"]) != len(big) || len(list(v["problems"])) != 0 {
		t.Errorf("cas_verify = %v", done)
	}
}
