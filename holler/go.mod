module github.com/hootenanny/hoot/holler

go 1.26.0

replace (
	github.com/hootenanny/hoot/gen => ../gen
	github.com/hootenanny/hoot/hootenanny => ../hootenanny
	github.com/hootenanny/hoot/hooteproto => ../hooteproto
)

require (
	github.com/hootenanny/hoot/gen v0.0.0
	github.com/hootenanny/hoot/hootenanny v0.0.0
	github.com/hootenanny/hoot/hooteproto v0.0.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	google.golang.org/protobuf v1.36.11
)

require (
	github.com/go-chi/chi/v5 v5.5.0
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/pebbe/zmq4 v1.4.0 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
