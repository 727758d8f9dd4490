package protocol

// The checks of the page methods' params that need nothing but the
// params: what the service refuses (CodeInvalidParams) before it looks
// for a tab. Each Check takes op, the method's name, which starts its
// message ("fill: target is empty …"); a front end may make the same
// check before it calls.

// MaxFormFields bounds a form.fill call (a form's fields, not a page's).
const MaxFormFields = 100

// needElement refuses an element action without a target.
func needElement(op, element string) error {
	if element == "" {
		return Errorf(CodeInvalidParams, "%s: target is empty (a @ref or a locator)", op)
	}
	return nil
}

// Check checks the params of hover, check, uncheck and focus.
func (p ElementParams) Check(op string) error { return needElement(op, p.Element) }

// Check checks click's params.
func (p ClickParams) Check(op string) error { return needElement(op, p.Element) }

// Check checks fill's params.
func (p FillParams) Check(op string) error { return needElement(op, p.Element) }

// Check checks type's params.
func (p TypeParams) Check(op string) error {
	if p.DelayMs < 0 {
		return Errorf(CodeInvalidParams, "%s: delayMs must not be negative", op)
	}
	return nil
}

// Check checks press's params.
func (p PressParams) Check(op string) error {
	if p.Key == "" {
		return Errorf(CodeInvalidParams, "%s: key is empty", op)
	}
	return nil
}

// Check checks select's params.
func (p SelectParams) Check(op string) error {
	if err := needElement(op, p.Element); err != nil {
		return err
	}
	for _, i := range p.Indexes {
		if i < 0 {
			return Errorf(CodeInvalidParams, "%s: index %d is negative", op, i)
		}
	}
	return nil
}

// Check checks drag's params.
func (p DragParams) Check(op string) error {
	if p.Element == "" || p.To == "" {
		return Errorf(CodeInvalidParams, "%s: needs a target and a to (each a @ref or a locator)", op)
	}
	return nil
}

// Check checks upload's params (its files are the service's to check).
func (p UploadParams) Check(op string) error { return needElement(op, p.Element) }

// Check checks scroll's params.
func (p ScrollParams) Check(op string) error {
	if p.Element == "" && p.DX == 0 && p.DY == 0 {
		return Errorf(CodeInvalidParams, "%s: give a target to scroll into view, or a delta (dx, dy)", op)
	}
	return nil
}

// Check checks form.fill's params: 1 to MaxFormFields fields, each with
// a target and what its action takes (fill text, select values, check
// and uncheck nothing).
func (p FormFillParams) Check(op string) error {
	if len(p.Fields) == 0 {
		return Errorf(CodeInvalidParams, "%s: no fields", op)
	}
	if len(p.Fields) > MaxFormFields {
		return Errorf(CodeInvalidParams, "%s: %d fields; at most %d in one call", op, len(p.Fields), MaxFormFields)
	}
	for i, f := range p.Fields {
		if f.Element == "" {
			return Errorf(CodeInvalidParams, "%s: field %d: target is empty (a @ref or a locator)", op, i+1)
		}
		switch f.Action {
		case MethodFill:
			if len(f.Values) > 0 {
				return Errorf(CodeInvalidParams, "%s: field %d (%s): fill takes text, not values", op, i+1, f.Element)
			}
		case MethodSelect:
			if len(f.Values) == 0 {
				return Errorf(CodeInvalidParams, "%s: field %d (%s): select needs values", op, i+1, f.Element)
			}
			if f.Text != "" {
				return Errorf(CodeInvalidParams, "%s: field %d (%s): select takes values, not text", op, i+1, f.Element)
			}
		case MethodCheck, MethodUncheck:
			if f.Text != "" || len(f.Values) > 0 {
				return Errorf(CodeInvalidParams, "%s: field %d (%s): %s takes no text or values", op, i+1, f.Element, f.Action)
			}
		default:
			return Errorf(CodeInvalidParams, "%s: field %d (%s): action %q is not fill, check, uncheck or select", op, i+1, f.Element, f.Action)
		}
	}
	return nil
}

// Check checks goto's params (the URL itself is the service's to judge).
func (p GotoParams) Check(op string) error {
	if p.Snapshot != nil && p.Snapshot.MaxChars < 0 {
		return Errorf(CodeInvalidParams, "%s: snapshot.maxChars must not be negative", op)
	}
	if p.URL == "" {
		return Errorf(CodeInvalidParams, "%s: url is empty", op)
	}
	return nil
}

// Check checks eval's params.
func (p EvalParams) Check(op string) error {
	if p.Expression == "" {
		return Errorf(CodeInvalidParams, "%s: expression is empty", op)
	}
	return nil
}

// needOne refuses a method that reads one element without a target.
func needOne(op, element string) error {
	if element == "" {
		return Errorf(CodeInvalidParams, "%s: target is empty", op)
	}
	return nil
}

// Check checks inspect's params.
func (p InspectParams) Check(op string) error { return needOne(op, p.Element) }

// Check checks locators' params.
func (p LocatorsParams) Check(op string) error { return needOne(op, p.Element) }

// Check checks resolve's target (its mode is checked on the tab, after
// the tab's own errors).
func (p ResolveParams) Check(op string) error { return needOne(op, p.Element) }

// Check checks snapshot's maxChars and start (its timeoutMs is checked on
// the tab, after the tab's own errors).
func (p SnapshotParams) Check(op string) error {
	if p.MaxChars < 0 || p.Start < 0 {
		return Errorf(CodeInvalidParams, "%s: maxChars and start must not be negative", op)
	}
	return nil
}

// Check checks resize's params: both 0 (the window's own size), or each
// 1 to MaxViewport.
func (p ResizeParams) Check(op string) error {
	if p.Width == 0 && p.Height == 0 {
		return nil
	}
	if p.Width < 1 || p.Height < 1 || p.Width > MaxViewport || p.Height > MaxViewport {
		return Errorf(CodeInvalidParams, "%s: width and height must be 1 to %d CSS pixels each (or both 0: the window's own size), not %d × %d", op, MaxViewport, p.Width, p.Height)
	}
	return nil
}
