package cas

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// URLForms says what [OpenURL] takes, for help texts and errors.
const URLForms = "a directory path (such as /var/lib/hootenanny/cas) or s3://bucket/prefix " +
	"(S3-compatible object storage; server and keys from AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, " +
	"AWS_SECRET_ACCESS_KEY and AWS_REGION)"

// OpenURL opens the store that spec names: a directory path opens a [Dir] (see [OpenDir]);
// s3://bucket or s3://bucket/prefix an [S3] store (see [OpenS3]), whose server and
// credentials the environment gives. Anything else with a scheme is refused, naming what is
// taken.
func OpenURL(ctx context.Context, spec string, opts *Options) (Store, error) {
	if spec == "" {
		return nil, errors.New("cas: no content store given; give " + URLForms)
	}
	scheme, _, hasScheme := strings.Cut(spec, "://")
	switch {
	case !hasScheme:
		return OpenDir(spec, opts)
	case strings.EqualFold(scheme, "s3"):
		cfg, err := ParseS3URL(spec)
		if err != nil {
			return nil, err
		}
		return OpenS3(ctx, cfg, opts)
	}
	return nil, fmt.Errorf("cas: %q: a content store of the scheme %q is not known; give %s", spec, scheme, URLForms)
}
