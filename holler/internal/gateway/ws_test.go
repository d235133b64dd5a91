package gateway

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestWebSocketThroughGateway opens /ws on a served gateway, behind its connection limits and
// per-write deadlines: the socket outlives the write timeout of the HTTP exchange that opened
// it, since each frame's write has its own bound.
func TestWebSocketThroughGateway(t *testing.T) {
	t.Parallel()
	_, addr := serveLimited(t, Config{WriteTimeout: 100 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	read := func() string {
		t.Helper()
		_, data, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return string(data)
	}
	if hello := read(); !strings.Contains(hello, `"hootenanny/welcome"`) || !strings.Contains(hello, `"schemaHash":"sha256:`) {
		t.Fatalf("greeting = %s", hello)
	}
	// Past the write timeout of the upgrade's answer, which the socket must not keep.
	time.Sleep(300 * time.Millisecond)
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("ping = %s", got)
	}
	if err := conn.Close(websocket.StatusNormalClosure, ""); err != nil {
		t.Errorf("close: %v", err)
	}
}
