module github.com/hootenanny/hoot/hootenanny

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

require github.com/pebbe/zmq4 v1.4.0 // indirect
