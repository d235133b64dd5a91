package mcp

import (
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/config"
)

// The server's Config, its defaults and the interfaces it is given live in package config;
// these are their names here, so that a caller needs only this package.
type (
	Config      = config.Config
	Backend     = config.Backend
	LiveBackend = config.LiveBackend
	Observer    = config.Observer
	CallRecord  = config.CallRecord
	Tracer      = config.Tracer
	StateLedger = config.StateLedger
)

// Defaults for the zero fields of a [Config] (package config says what each bounds).
const (
	DefaultMaxBodyBytes         = config.DefaultMaxBodyBytes
	DefaultCallTimeout          = config.DefaultCallTimeout
	DefaultSessionIdleTimeout   = config.DefaultSessionIdleTimeout
	DefaultPageSize             = config.DefaultPageSize
	DefaultKeepAlive            = config.DefaultKeepAlive
	DefaultEventBuffer          = config.DefaultEventBuffer
	DefaultEventBufferBytes     = config.DefaultEventBufferBytes
	DefaultEventBufferTotal     = config.DefaultEventBufferTotal
	DefaultMaxSessions          = config.DefaultMaxSessions
	DefaultMaxListens           = config.DefaultMaxListens
	DefaultName                 = config.DefaultName
	DefaultTitle                = config.DefaultTitle
	DefaultVersion              = config.DefaultVersion
	DefaultWebSocketMaxInFlight = config.DefaultWebSocketMaxInFlight
)

// defaultTools is the table of a Config that leaves Tools nil: the product's tools. The
// package's tests add the fixtures.
var defaultTools = hootv1hoot.Tools
