package queryservice

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/graph"
	"github.com/hootenanny/hoot/hootenanny/internal/jobs"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/types/known/structpb"
)

type jobList struct{ *jobs.Runner }

func (q jobList) List(ctx context.Context, f jobs.Filter) ([]jobs.Job, string, error) {
	return q.Store().List(ctx, f)
}

func TestThroughDispatch(t *testing.T) { servicetest.EachEngine(t, testThroughDispatch) }

func testThroughDispatch(t *testing.T, engine database.Engine) {
	ctx := context.Background()
	db, _ := servicetest.OpenDatabase(t, engine)
	arts := artifacts.NewStore(db)
	runner, err := jobs.NewRunner(ctx, jobs.NewStore(db), jobs.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	a, err := arts.Create(ctx, artifacts.New{Hash: strings.Repeat("a", 64), MimeType: "text/plain", Creator: "me"})
	if err != nil {
		t.Fatal(err)
	}
	svc := hootv1hoot.NewQueryService(New(graph.New(arts, jobList{runner}), slog.New(slog.DiscardHandler)))
	vars, _ := structpb.NewStruct(map[string]any{"id": a.ID})
	res, err := svc.Dispatch(ctx, &hootv1.Payload{Request: &hootv1.Payload_ArtifactQuery{ArtifactQuery: &hootv1.ArtifactQueryRequest{
		Query: `query Q($id: ID!) { artifact(id: $id) { creator } }`, Variables: vars,
	}}})
	if err != nil || res.GetArtifactQuery().GetData()[0].GetArtifact().GetCreator() != "me" {
		t.Fatalf("artifact_query = %v, %v", res, err)
	}
	_, err = svc.Dispatch(ctx, &hootv1.Payload{Request: &hootv1.Payload_ArtifactQuery{ArtifactQuery: &hootv1.ArtifactQueryRequest{Query: "{ nope }"}}})
	var e *hooteproto.Error
	if !errors.As(err, &e) || e.Code() != hooteproto.CodeInvalidArgument || e.Field() != "query" || !strings.Contains(e.Message(), "line 1, column 3") {
		t.Errorf("a bad query = %v", err)
	}
	db.Close()
	_, err = svc.Dispatch(ctx, &hootv1.Payload{Request: &hootv1.Payload_ArtifactQuery{ArtifactQuery: &hootv1.ArtifactQueryRequest{Query: "{ artifacts { id } }"}}})
	if !errors.As(err, &e) || e.Code() != hooteproto.CodeInternal || strings.Contains(e.Message(), "sql") {
		t.Errorf("a failing store = %v, want an internal error without its details", err)
	}
}

// A database that cannot be reached gives a retryable unavailable error, and queries work again
// once it is back.
func TestDatabaseUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, proxy := servicetest.CuttableDatabase(t)
	arts := artifacts.NewStore(db)
	runner, err := jobs.NewRunner(ctx, jobs.NewStore(db), jobs.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	svc := hootv1hoot.NewQueryService(New(graph.New(arts, jobList{runner}), slog.New(slog.DiscardHandler)))
	query := func() error {
		_, err := svc.Dispatch(ctx, &hootv1.Payload{Request: &hootv1.Payload_ArtifactQuery{ArtifactQuery: &hootv1.ArtifactQueryRequest{Query: "{ artifacts { id } jobs { id } }"}}})
		return err
	}
	if err := query(); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	servicetest.WantUnavailable(t, query())
	proxy.Restore(t)
	servicetest.Eventually(t, query)
}
