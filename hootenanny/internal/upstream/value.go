package upstream

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

// ValueOf returns v (as [ParseJSON] or the codec's encoder returns it) as an UpstreamValue.
func ValueOf(v any) (*hootv1.UpstreamValue, error) {
	switch t := v.(type) {
	case nil:
		return &hootv1.UpstreamValue{Kind: &hootv1.UpstreamValue_NullValue{NullValue: true}}, nil
	case string:
		return &hootv1.UpstreamValue{Kind: &hootv1.UpstreamValue_StringValue{StringValue: t}}, nil
	case bool:
		return &hootv1.UpstreamValue{Kind: &hootv1.UpstreamValue_BoolValue{BoolValue: t}}, nil
	case json.Number:
		return number(t.String()), nil
	case int64:
		return number(strconv.FormatInt(t, 10)), nil
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, fmt.Errorf("%v is not a JSON number", t)
		}
		return number(strconv.FormatFloat(t, 'g', -1, 64)), nil
	case []any:
		l := &hootv1.UpstreamList{Values: make([]*hootv1.UpstreamValue, len(t))}
		for i, e := range t {
			ev, err := ValueOf(e)
			if err != nil {
				return nil, err
			}
			l.Values[i] = ev
		}
		return &hootv1.UpstreamValue{Kind: &hootv1.UpstreamValue_ListValue{ListValue: l}}, nil
	case map[string]any:
		o := &hootv1.UpstreamObject{Fields: make(map[string]*hootv1.UpstreamValue, len(t))}
		for k, e := range t {
			ev, err := ValueOf(e)
			if err != nil {
				return nil, err
			}
			o.Fields[k] = ev
		}
		return &hootv1.UpstreamValue{Kind: &hootv1.UpstreamValue_ObjectValue{ObjectValue: o}}, nil
	}
	return nil, fmt.Errorf("%T has no JSON form", v)
}

func number(text string) *hootv1.UpstreamValue {
	return &hootv1.UpstreamValue{Kind: &hootv1.UpstreamValue_NumberValue{NumberValue: text}}
}
