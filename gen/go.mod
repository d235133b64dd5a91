module github.com/hootenanny/hoot/gen

go 1.26

require google.golang.org/protobuf v1.36.11
