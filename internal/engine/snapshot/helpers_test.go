package snapshot_test

import "github.com/chromedp/cdproto/runtime"

var runtimeEvaluate = runtime.Evaluate

func evalParams(expr string) runtime.EvaluateParams {
	yes := true
	return runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes}
}
