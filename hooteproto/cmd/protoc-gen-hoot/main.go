// Command protoc-gen-hoot is the protoc plugin that turns the hoot schema into the gateway's
// tool table and the worker's handler interfaces. Run it with buf, next to protoc-gen-go, from
// buf.gen.yaml:
//
//	version: v2
//	plugins:
//	  - local: ["go", "tool", "protoc-gen-go"]
//	    out: gen
//	    opt: paths=source_relative
//	  - local: ["go", "run", "./hooteproto/cmd/protoc-gen-hoot"]
//	    out: gen
//	    opt: paths=source_relative
//	    strategy: all
//
// Only a proto file that defines a Payload message produces output: tools.hoot.go and
// services.hoot.go in the package <go package>hoot, next to the schema's Go package
// (gen/hoot/v1/hootv1hoot for hoot/v1/envelope.proto). The parameter package_suffix changes
// the "hoot" suffix. A schema whose Payload file has the (hoot.v1.carried) option, such as the
// conformance fixtures (hoot/conformance/v1/envelope.proto), is written into the types of the
// schema that carries it; run the plugin with strategy: all, so that it sees both.
//
// The plugin reads the (hoot.v1.tool) and (hoot.v1.field) options through the Go code that
// protoc-gen-go generated for options.proto, linked into the plugin. After options.proto
// changes, run buf generate twice: the first run regenerates that code, the second lets the
// plugin read the new options. The plugin warns on standard error when the two differ.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hootenanny/hoot/hooteproto/cmd/protoc-gen-hoot/internal/genhoot"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"
)

// version is the plugin's version, printed by --version.
const version = "0.1.0"

const usageText = `Usage: protoc-gen-hoot [--version | --help]

protoc-gen-hoot is a protoc plugin: protoc or buf runs it with a CodeGeneratorRequest on
standard input. It writes the tool table (tools.hoot.go) and the worker services
(services.hoot.go) for the proto file that defines the Payload message.

Parameters (buf.gen.yaml opt):
  paths=source_relative   as for protoc-gen-go
  package_suffix=hoot     appended to the Go package name to name the generated package
`

func main() {
	if len(os.Args) == 2 {
		switch os.Args[1] {
		case "--version", "-version":
			fmt.Fprintln(os.Stdout, strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe"), version)
			os.Exit(0)
		case "--help", "-help", "-h":
			fmt.Fprint(os.Stdout, usageText)
			os.Exit(0)
		}
	}
	flags, opts := params()
	protogen.Options{ParamFunc: flags.Set}.Run(func(plugin *protogen.Plugin) error {
		return run(plugin, *opts)
	})
}

// params returns the plugin's parameters, which buf passes as opt in buf.gen.yaml, and the
// options they set.
func params() (*flag.FlagSet, *genhoot.Options) {
	flags := new(flag.FlagSet)
	opts := new(genhoot.Options)
	flags.StringVar(&opts.PackageSuffix, "package_suffix", genhoot.DefaultPackageSuffix,
		"appended to the Go package name to name the generated package")
	return flags, opts
}

// run generates every file of the request that defines a Payload message.
func run(plugin *protogen.Plugin, opts genhoot.Options) error {
	plugin.SupportedFeatures = uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL |
		pluginpb.CodeGeneratorResponse_FEATURE_SUPPORTS_EDITIONS)
	plugin.SupportedEditionsMinimum = descriptorpb.Edition_EDITION_PROTO2
	plugin.SupportedEditionsMaximum = descriptorpb.Edition_EDITION_2023
	if stale := genhoot.StaleOptions(plugin); stale != "" {
		fmt.Fprintln(os.Stderr, "protoc-gen-hoot: warning:", stale)
	}
	for _, f := range plugin.Files {
		if !f.Generate {
			continue
		}
		if err := genhoot.GenerateFile(plugin, f, opts); err != nil {
			return err
		}
	}
	return nil
}
