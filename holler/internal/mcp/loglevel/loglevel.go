// Package loglevel is MCP's log levels: the syslog severities of RFC 5424, least severe first,
// by which a session chooses the log messages it receives (logging/setLevel, or the 2026-07-28
// era's _meta logLevel).
package loglevel

// A Level is a log message's severity.
type Level int

const (
	Debug Level = iota
	Info
	Notice
	Warning
	Error
	Critical
	Alert
	Emergency
)

// Default is a session's level until the client sets one.
const Default = Info

// Silent is a level above every message's: a 2026-07-28 request without a logLevel gets no
// log messages at all.
const Silent = Emergency + 1

// Names are the levels' names on the wire, in order.
var Names = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// String returns the level's name on the wire.
func (l Level) String() string {
	if l < Debug || l > Emergency {
		return "unknown"
	}
	return Names[l]
}

// Parse reads a level's name.
func Parse(name string) (Level, bool) {
	for i, n := range Names {
		if n == name {
			return Level(i), true
		}
	}
	return 0, false
}

// Listed lists the names as a, b or c: what an error about a level expects.
func Listed() string {
	out := ""
	for i, n := range Names {
		switch {
		case i == 0:
		case i == len(Names)-1:
			out += " or "
		default:
			out += ", "
		}
		out += n
	}
	return out
}
