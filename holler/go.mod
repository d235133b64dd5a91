module github.com/hootenanny/hoot/holler

go 1.26

replace (
	github.com/hootenanny/hoot/gen => ../gen
	github.com/hootenanny/hoot/hooteproto => ../hooteproto
)

require (
	github.com/hootenanny/hoot/gen v0.0.0
	github.com/hootenanny/hoot/hooteproto v0.0.0
	google.golang.org/protobuf v1.36.11
)

require (
	github.com/go-chi/chi/v5 v5.5.0 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
)
