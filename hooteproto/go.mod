module github.com/hootenanny/hoot/hooteproto

go 1.26

require (
	github.com/bufbuild/protocompile v0.14.1
	github.com/hootenanny/hoot/gen v0.0.0
	github.com/pebbe/zmq4 v1.4.0
	google.golang.org/protobuf v1.36.11
)

require golang.org/x/sync v0.8.0 // indirect

tool google.golang.org/protobuf/cmd/protoc-gen-go

replace github.com/hootenanny/hoot/gen => ../gen
