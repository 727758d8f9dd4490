package pairing

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/animation"
	"github.com/chromedp/cdproto/audits"
	"github.com/chromedp/cdproto/browser"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/deviceorientation"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/io"
	"github.com/chromedp/cdproto/layertree"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/media"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/overlay"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/cdproto/performancetimeline"
	"github.com/chromedp/cdproto/preload"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/security"
	"github.com/chromedp/cdproto/webaudio"

	"github.com/egohost/egohost/internal/server/weburl"
	"github.com/egohost/egohost/protocol"
)

// This file is what raw CDP a paired agent holding the cdp scope may send
// (cdp.send): one table, default deny. The owner and the person are not
// limited by it. PROTOCOL.md §3.7 shows it (CDPTable writes that part;
// a test keeps the two the same).

// CDPCheck names the check an allowed method's params must pass before the
// service sends it.
type CDPCheck string

// The checks. The service runs them (it knows the tab and the agent's
// origin rules).
const (
	// CheckNone: the method reaches only the tab, whatever its params.
	CheckNone CDPCheck = ""
	// CheckNavigation: the destination (url; a history entry's URL) goes
	// through the same destination check as goto and must be a web page
	// (never a browser, DevTools or extension page); a fragment of the
	// tab's initial about:blank, which crashes Chromium, is refused to
	// everyone.
	CheckNavigation CDPCheck = "navigation"
	// CheckOwnCookies: only cookies of the tab's own origin (urls, url,
	// domain name it; none given is refused).
	CheckOwnCookies CDPCheck = "own cookies"
	// CheckOriginRead: the resource read (a request's response or posted
	// body, a frame's resource) or the request sent again is at a URL the
	// agent's origin rules permit.
	CheckOriginRead CDPCheck = "origin read"
	// CheckWorldName: the isolated world's name is not one of egohost's
	// own (EgohostWorld): egohost's engine takes a world of that name in
	// a new document for its own, and the agent would hold its context.
	CheckWorldName CDPCheck = "world name"
)

// EgohostWorld says whether an isolated world's name is one egohost's
// engine names its worlds with ("egohost", "egohost-overlay", any name
// that starts so).
func EgohostWorld(name string) bool { return strings.HasPrefix(name, "egohost") }

// CDPRule is the rule of one CDP method, or of a whole domain, for a
// paired agent with the cdp scope.
type CDPRule struct {
	// Method is "Domain.method", or "Domain" for the methods of the
	// domain that have no rule of their own (always refused: a method
	// Chrome adds later is refused until it is listed here).
	Method string
	Allow  bool
	Check  CDPCheck // an allowed method's check of its params
	Why    string   // why it is refused (every refusal says why)
}

// Domain returns the domain the rule is about.
func (r CDPRule) Domain() string {
	d, _, _ := strings.Cut(r.Method, ".")
	return d
}

// CDPRuleOf returns the rule of a CDP method: its own, else its domain's,
// else a refusal (an unknown method).
func CDPRuleOf(method string) CDPRule {
	if r, ok := cdpByMethod()[method]; ok {
		return r
	}
	d, _, _ := strings.Cut(method, ".")
	if r, ok := cdpByMethod()[d]; ok {
		r.Method = method
		return r
	}
	return CDPRule{Method: method, Why: "it is not in egohost's list of methods a paired agent may send (PROTOCOL.md §3.7)"}
}

// CDPRules returns every rule, by domain then method.
func CDPRules() []CDPRule { return slices.Clone(cdpRules()) }

// Why the domains the service relies on may not be turned off: the tab has
// one debugger session, which egohost's own calls share.
const sharedSession = "egohost's own calls (waits, dialogs, recording, the person's highlights) rely on it on the tab's one debugger session"

// Why state that outlives egohost's debugger session is refused: the
// service ends the session when a tab goes back to the person (PROTOCOL.md
// §3.6), and Chrome drops the other overrides with it, not these
// (measured in Chromium 156).
const outlivesSession = "what it sets outlives egohost's debugger session of the tab, which ends when the person takes the tab back: "

// Why code that outlives the document is refused.
const laterDocuments = "it would run in every later document of the tab, whatever its origin, also after the person takes the tab over; the origin rules could not stop it"

// cdpRules are the rules by domain then method, built on first use (not
// at every start of the binary: a CLI call never needs them).
var cdpRules = sync.OnceValue(func() []CDPRule {
	return sortRules(slices.Concat(
		allow(CheckNone,
			accessibility.CommandDisable, accessibility.CommandEnable, accessibility.CommandGetPartialAXTree,
			accessibility.CommandGetFullAXTree, accessibility.CommandGetRootAXNode, accessibility.CommandGetAXNodeAndAncestors,
			accessibility.CommandGetChildAXNodes, accessibility.CommandQueryAXTree),
		allow(CheckNone,
			animation.CommandDisable, animation.CommandEnable, animation.CommandGetCurrentTime, animation.CommandGetPlaybackRate,
			animation.CommandReleaseAnimations, animation.CommandResolveAnimation, animation.CommandSeekAnimations,
			animation.CommandSetPaused, animation.CommandSetPlaybackRate, animation.CommandSetTiming),
		allow(CheckNone, audits.CommandDisable, audits.CommandEnable, audits.CommandCheckFormsIssues),
		allow(CheckOriginRead, audits.CommandGetEncodedResponse),
		allow(CheckNone, browser.CommandGetVersion),
		allow(CheckNone,
			css.CommandAddRule, css.CommandCollectClassNames, css.CommandCreateStyleSheet, css.CommandDisable, css.CommandEnable,
			css.CommandForcePseudoState, css.CommandForceStartingStyle, css.CommandForcePositionTryOption,
			css.CommandGetBackgroundColors, css.CommandGetComputedStyleForNode, css.CommandResolveValues,
			css.CommandGetLonghandProperties, css.CommandGetInlineStylesForNode, css.CommandGetAnimatedStylesForNode,
			css.CommandGetMatchedStylesForNode, css.CommandGetEnvironmentVariables, css.CommandGetMediaQueries,
			css.CommandGetPlatformFontsForNode, css.CommandGetStyleSheetText, css.CommandGetLayersForNode,
			css.CommandGetLocationForSelector, css.CommandTrackComputedStyleUpdatesForNode, css.CommandTrackComputedStyleUpdates,
			css.CommandTakeComputedStyleUpdates, css.CommandSetEffectivePropertyValueForNode, css.CommandSetPropertyRulePropertyName,
			css.CommandSetKeyframeKey, css.CommandSetMediaText, css.CommandSetContainerQueryConditionText, css.CommandSetSupportsText,
			css.CommandSetNavigationText, css.CommandSetScopeText, css.CommandSetRuleSelector, css.CommandSetStyleSheetText,
			css.CommandSetStyleTexts, css.CommandStartRuleUsageTracking, css.CommandStopRuleUsageTracking,
			css.CommandTakeCoverageDelta, css.CommandSetLocalFontsEnabled),
		allow(CheckNone, deviceorientation.CommandClearDeviceOrientationOverride, deviceorientation.CommandSetDeviceOrientationOverride),
		allow(CheckNone,
			dom.CommandCollectClassNamesFromSubtree, dom.CommandCopyTo, dom.CommandDescribeNode, dom.CommandScrollIntoViewIfNeeded,
			dom.CommandDiscardSearchResults, dom.CommandEnable, dom.CommandFocus, dom.CommandGetAttributes, dom.CommandGetBoxModel,
			dom.CommandGetContentQuads, dom.CommandGetDocument, dom.CommandGetNodesForSubtreeByStyle, dom.CommandGetNodeForLocation,
			dom.CommandGetOuterHTML, dom.CommandGetRelayoutBoundary, dom.CommandGetSearchResults, dom.CommandMarkUndoableState,
			dom.CommandMoveTo, dom.CommandPerformSearch, dom.CommandPushNodeByPathToFrontend, dom.CommandPushNodesByBackendIDsToFrontend,
			dom.CommandQuerySelector, dom.CommandQuerySelectorAll, dom.CommandGetTopLayerElements, dom.CommandGetElementByRelation,
			dom.CommandRedo, dom.CommandRemoveAttribute, dom.CommandRemoveNode, dom.CommandRequestChildNodes, dom.CommandRequestNode,
			dom.CommandResolveNode, dom.CommandSetAttributeValue, dom.CommandSetAttributesAsText, dom.CommandSetNodeStackTracesEnabled,
			dom.CommandGetNodeStackTraces, dom.CommandGetDetachedDomNodes, dom.CommandSetInspectedNode, dom.CommandSetNodeName,
			dom.CommandSetNodeValue, dom.CommandSetOuterHTML, dom.CommandUndo, dom.CommandGetFrameOwner, dom.CommandGetContainerForNode,
			dom.CommandGetQueryingDescendantsForContainer, dom.CommandGetAnchorElement, dom.CommandForceShowPopover,
			dom.CommandGetImplicitAnchorCandidates, dom.CommandForceShowInterest, dom.CommandSetTextMarker, dom.CommandClearTextMarkers),
		allow(CheckNone, domdebugger.CommandGetEventListeners),
		allow(CheckNone, domsnapshot.CommandDisable, domsnapshot.CommandEnable, domsnapshot.CommandCaptureSnapshot),
		allow(CheckNone,
			emulation.CommandClearDeviceMetricsOverride, emulation.CommandClearGeolocationOverride, emulation.CommandResetPageScaleFactor,
			emulation.CommandSetFocusEmulationEnabled, emulation.CommandSetAutoDarkModeOverride, emulation.CommandSetCPUThrottlingRate,
			emulation.CommandSetDefaultBackgroundColorOverride, emulation.CommandSetSafeAreaInsetsOverride,
			emulation.CommandSetVirtualKeyboardGeometryOverride, emulation.CommandSetDeviceMetricsOverride,
			emulation.CommandSetDevicePostureOverride, emulation.CommandClearDevicePostureOverride,
			emulation.CommandSetDisplayFeaturesOverride, emulation.CommandClearDisplayFeaturesOverride,
			emulation.CommandSetScrollbarsHidden, emulation.CommandSetDocumentCookieDisabled,
			emulation.CommandSetEmitTouchEventsForMouse, emulation.CommandSetEmulatedMedia,
			emulation.CommandSetEmulatedVisionDeficiency, emulation.CommandSetEmulatedOSTextScale,
			emulation.CommandSetGeolocationOverride, emulation.CommandGetOverriddenSensorInformation,
			emulation.CommandSetSensorOverrideEnabled, emulation.CommandSetSensorOverrideReadings,
			emulation.CommandSetPressureSourceOverrideEnabled, emulation.CommandSetPressureStateOverride,
			emulation.CommandSetIdleOverride, emulation.CommandClearIdleOverride, emulation.CommandSetPageScaleFactor,
			emulation.CommandSetScriptExecutionDisabled, emulation.CommandSetTouchEmulationEnabled,
			emulation.CommandSetLocaleOverride, emulation.CommandSetTimezoneOverride,
			emulation.CommandSetDisabledImageTypes, emulation.CommandSetDataSaverOverride,
			emulation.CommandSetHardwareConcurrencyOverride, emulation.CommandSetCPUPerformanceOverride,
			emulation.CommandSetUserAgentOverride, emulation.CommandSetAutomationOverride,
			emulation.CommandSetSmallViewportHeightDifferenceOverride, emulation.CommandGetScreenInfos),
		allow(CheckNone,
			input.CommandDispatchDragEvent, input.CommandDispatchKeyEvent, input.CommandInsertText, input.CommandImeSetComposition,
			input.CommandDispatchMouseEvent, input.CommandDispatchTouchEvent, input.CommandCancelDragging,
			input.CommandEmulateTouchFromMouseEvent, input.CommandSetInterceptDrags, input.CommandSynthesizePinchGesture,
			input.CommandSynthesizeScrollGesture, input.CommandSynthesizeTapGesture),
		allow(CheckNone, inspector.CommandDisable, inspector.CommandEnable),
		allow(CheckNone, io.CommandClose, io.CommandRead),
		allow(CheckNone,
			layertree.CommandCompositingReasons, layertree.CommandDisable, layertree.CommandEnable, layertree.CommandLoadSnapshot,
			layertree.CommandMakeSnapshot, layertree.CommandProfileSnapshot, layertree.CommandReleaseSnapshot,
			layertree.CommandReplaySnapshot, layertree.CommandSnapshotCommandLog),
		allow(CheckNone, log.CommandClear, log.CommandDisable, log.CommandEnable, log.CommandStartViolationsReport, log.CommandStopViolationsReport),
		allow(CheckNone, media.CommandEnable, media.CommandDisable),
		allow(CheckNone,
			network.CommandEnable, network.CommandEmulateNetworkConditionsByRule, network.CommandOverrideNetworkState,
			network.CommandConfigureDurableMessages, network.CommandSetBlockedURLs, network.CommandSetBypassServiceWorker, network.CommandSetCacheDisabled,
			network.CommandSetAttachDebugStack, network.CommandGetSecurityIsolationStatus,
			network.CommandEnableReportingAPI, network.CommandFetchSchemefulSite),
		allow(CheckOwnCookies, network.CommandGetCookies, network.CommandSetCookie, network.CommandSetCookies, network.CommandDeleteCookies),
		allow(CheckOriginRead, network.CommandGetResponseBody, network.CommandSearchInResponseBody, network.CommandStreamResourceContent,
			network.CommandGetRequestPostData, network.CommandReplayXHR),
		allow(CheckNone,
			overlay.CommandEnable, overlay.CommandGetHighlightObjectForTest, overlay.CommandGetGridHighlightObjectsForTest,
			overlay.CommandGetSourceOrderHighlightObjectForTest, overlay.CommandHideHighlight, overlay.CommandHighlightNode,
			overlay.CommandHighlightQuad, overlay.CommandHighlightRect, overlay.CommandHighlightSourceOrder,
			overlay.CommandSetInspectMode, overlay.CommandSetShowAdHighlights, overlay.CommandSetPausedInDebuggerMessage,
			overlay.CommandSetShowDebugBorders, overlay.CommandSetShowFPSCounter, overlay.CommandSetShowGridOverlays,
			overlay.CommandSetShowFlexOverlays, overlay.CommandSetShowScrollSnapOverlays,
			overlay.CommandSetShowContainerQueryOverlays, overlay.CommandSetShowInspectedElementAnchor,
			overlay.CommandSetShowPaintRects, overlay.CommandSetShowLayoutShiftRegions,
			overlay.CommandSetShowScrollBottleneckRects, overlay.CommandSetShowViewportSizeOnResize, overlay.CommandSetShowHinge,
			overlay.CommandSetShowDisplayCutout, overlay.CommandSetShowIsolatedElements, overlay.CommandSetShowWindowControlsOverlay),
		allow(CheckNone,
			page.CommandBringToFront, page.CommandCaptureScreenshot, page.CommandClose,
			page.CommandEnable, page.CommandGetAppManifest, page.CommandGetInstallabilityErrors, page.CommandGetAppID,
			page.CommandGetAdScriptAncestry, page.CommandGetFrameTree, page.CommandGetLayoutMetrics,
			page.CommandGetNavigationHistory, page.CommandResetNavigationHistory, page.CommandGetResourceTree,
			page.CommandHandleJavaScriptDialog, page.CommandPrintToPDF, page.CommandReload,
			page.CommandRemoveScriptToEvaluateOnNewDocument, page.CommandScreencastFrameAck, page.CommandSetAdBlockingEnabled,
			page.CommandGetPermissionsPolicyState, page.CommandGetOriginTrials,
			page.CommandSetDocumentContent, page.CommandStartScreencast, page.CommandStopScreencast,
			page.CommandStopLoading, page.CommandSetInterceptFileChooserDialog,
			page.CommandGetAnnotatedPageContent, page.CommandSetInputVisualization),
		allow(CheckNavigation, page.CommandNavigate, page.CommandNavigateToHistoryEntry),
		allow(CheckWorldName, page.CommandCreateIsolatedWorld),
		allow(CheckOriginRead, page.CommandGetResourceContent, page.CommandSearchInResource),
		allow(CheckNone, performance.CommandDisable, performance.CommandEnable, performance.CommandGetMetrics),
		allow(CheckNone, performancetimeline.CommandEnable),
		allow(CheckNone, preload.CommandEnable, preload.CommandDisable),
		allow(CheckNone,
			profiler.CommandDisable, profiler.CommandEnable, profiler.CommandGetBestEffortCoverage, profiler.CommandSetSamplingInterval,
			profiler.CommandStart, profiler.CommandStartPreciseCoverage, profiler.CommandStop, profiler.CommandStopPreciseCoverage,
			profiler.CommandTakePreciseCoverage),
		allow(CheckNone,
			runtime.CommandAwaitPromise, runtime.CommandCallFunctionOn, runtime.CommandCompileScript,
			runtime.CommandDiscardConsoleEntries, runtime.CommandEnable, runtime.CommandEvaluate, runtime.CommandGetIsolateID,
			runtime.CommandGetHeapUsage, runtime.CommandGetProperties, runtime.CommandGlobalLexicalScopeNames,
			runtime.CommandQueryObjects, runtime.CommandReleaseObject, runtime.CommandReleaseObjectGroup,
			runtime.CommandRunIfWaitingForDebugger, runtime.CommandRunScript, runtime.CommandSetCustomObjectFormatterEnabled,
			runtime.CommandSetMaxCallStackSizeToCapture, runtime.CommandTerminateExecution, runtime.CommandAddBinding,
			runtime.CommandRemoveBinding, runtime.CommandGetExceptionDetails),
		allow(CheckNone, security.CommandDisable, security.CommandEnable),
		allow(CheckNone, webaudio.CommandEnable, webaudio.CommandDisable, webaudio.CommandGetRealtimeData),

		// Refused, and why. Anything not allowed above is refused too; these
		// are the ones an attacker would reach for first.
		[]CDPRule{
			deny("Browser", "the whole browser, not the tab: permissions for any site, downloads to any folder, closing or crashing it"),
			deny(browser.CommandSetDownloadBehavior, "it writes downloads to any folder of the person's disk"),
			deny("Target", "other tabs and targets: attaching to them, opening new ones (past the destination check), listing every tab's URL, turning off the auto-attach egohost relies on"),
			deny("Storage", "it reads and clears every origin's data: all cookies (Storage.getCookies), caches, databases, quotas"),
			deny("IndexedDB", "any origin's databases, named by origin"),
			deny("CacheStorage", "any origin's caches, named by origin"),
			deny("DOMStorage", "any origin's localStorage and sessionStorage, named by origin"),
			deny("FileSystem", "any origin's file systems, named by storage key"),
			deny("ServiceWorker", "any origin's service workers: push, sync, stop, unregister"),
			deny("BackgroundService", "background events of every origin"),
			deny("Fetch", "it intercepts and rewrites every request of the tab, to any origin and for later documents too (a denied origin's page served with the agent's content), and reads bodies CORS hides"),
			deny("Debugger", "breakpoint conditions run code in later documents of the tab whatever their origin, and a paused page freezes for the person"),
			deny("DOMDebugger", "breakpoints (see Debugger); getEventListeners is allowed"),
			deny("EventBreakpoints", "breakpoints (see Debugger)"),
			deny("Extensions", "it loads extensions from a folder on disk and reads other extensions' storage"),
			deny("PWA", "it installs, launches and removes web apps"),
			deny("SystemInfo", "the machine's hardware and processes"),
			deny("Tethering", "it opens ports on the machine"),
			deny("Tracing", "it records the whole browser (every tab's URLs and content) and streams it"),
			deny("Memory", "process-wide memory controls and dumps"),
			deny("HeapProfiler", "the renderer's whole heap, which the person's other tabs of the site may share"),
			deny("WebAuthn", "virtual authenticators answer the tab's sign-ins, also those of later documents"),
			deny("FedCm", "it signs the person in to sites with their identity provider's accounts"),
			deny("Autofill", "the person's autofill data and forms"),
			deny("DeviceAccess", "it grants sites the person's Bluetooth and USB devices"),
			deny("Cast", "the person's cast devices"),
			deny(dom.CommandSetFileInputFiles, "it gives the page any local file by its path"),
			deny(dom.CommandGetFileInfo, "it reveals the local path of a file the person chose"),
			deny(dom.CommandDisable, sharedSession),
			deny(input.CommandSetIgnoreInputEvents, "the person could no longer use the tab, in this and later documents"),
			deny(network.CommandClearBrowserCookies, "every cookie of the browser"),
			deny(network.CommandClearBrowserCache, "the whole browser's cache"),
			deny("Network.getAllCookies", "every cookie of the browser, every site's session included"),
			deny(network.CommandLoadNetworkResource, "it fetches any URL with the person's cookies, past CORS"),
			deny(network.CommandSetCookieControls, "the browser's third-party cookie settings"),
			deny(network.CommandSetExtraHTTPHeaders, "the headers go with every later request of the tab, to any origin, the person's own after a take over too (a Cookie header would sign them in as someone else)"),
			deny(network.CommandDisable, sharedSession),
			deny(overlay.CommandDisable, sharedSession),
			deny(page.CommandAddScriptToEvaluateOnNewDocument, laterDocuments),
			deny(page.CommandSetBypassCSP, "it turns off the Content Security Policy of later documents of the tab, whatever their origin"),
			deny(page.CommandCaptureSnapshot, "the MHTML holds every frame of the page, those of origins the agent may not read too"),
			deny(page.CommandCrash, "it kills the tab's renderer, which the person's other tabs of the site may share"),
			deny("Page.setDownloadBehavior", "it writes downloads to any folder of the person's disk"),
			deny(page.CommandStartScreenRecording, "it records the screen"),
			deny(page.CommandWaitForDebugger, "it holds the page until a debugger resumes it"),
			deny(page.CommandAddCompilationCache, "it plants compiled code for a script URL the page will load"),
			deny(page.CommandSetSPCTransactionMode, "it confirms payments for the person"),
			deny(emulation.CommandSetVirtualTimePolicy, outlivesSession+"a paused clock would stop the person's page"),
			deny(page.CommandSetWebLifecycleState, outlivesSession+"a frozen page would stay frozen for the person"),
			deny(page.CommandSetFontFamilies, outlivesSession+"the tab's fonts would stay changed for the person"),
			deny(page.CommandSetFontSizes, outlivesSession+"the tab's font sizes would stay changed for the person"),
			deny(page.CommandSetRPHRegistrationMode, "it accepts protocol handlers for the person"),
			deny(page.CommandGetSpellCheckCustomDictionary, "the person's own dictionary words"),
			deny(page.CommandDisable, sharedSession),
			deny(page.CommandSetLifecycleEventsEnabled, sharedSession),
			deny(runtime.CommandDisable, sharedSession),
			deny(security.CommandSetIgnoreCertificateErrors, "it makes the browser trust any certificate"),
		},
	))
})

// allow lists methods a paired agent may send, with a check of their params.
func allow(check CDPCheck, methods ...string) []CDPRule {
	out := make([]CDPRule, len(methods))
	for i, m := range methods {
		out[i] = CDPRule{Method: m, Allow: true, Check: check}
	}
	return out
}

// deny refuses a method, or a domain's methods without a rule, saying why.
func deny(method, why string) CDPRule { return CDPRule{Method: method, Why: why} }

func sortRules(rules []CDPRule) []CDPRule {
	slices.SortStableFunc(rules, func(a, b CDPRule) int {
		if c := strings.Compare(a.Domain(), b.Domain()); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return rules
}

var cdpByMethod = sync.OnceValue(func() map[string]CDPRule {
	rules := cdpRules()
	m := make(map[string]CDPRule, len(rules))
	for _, r := range rules {
		if _, dup := m[r.Method]; dup {
			panic(fmt.Sprintf("pairing: two CDP rules for %s", r.Method))
		}
		m[r.Method] = r
	}
	return m
})

// CDPTable renders the rules as PROTOCOL.md §3.7 shows them: the methods
// a paired agent with cdp may send, by domain (with their checks), then
// what is refused and why.
func CDPTable() string {
	var b strings.Builder
	b.WriteString("| domain | a paired agent with `cdp` may send |\n|---|---|\n")
	var domain string
	var names []string
	flush := func() {
		if len(names) > 0 {
			fmt.Fprintf(&b, "| `%s` | %s |\n", domain, strings.Join(names, ", "))
		}
		names = names[:0]
	}
	for _, r := range cdpRules() {
		if !r.Allow {
			continue
		}
		if r.Domain() != domain {
			flush()
			domain = r.Domain()
		}
		_, name, _ := strings.Cut(r.Method, ".")
		if r.Check != CheckNone {
			name += " (" + string(r.Check) + ")"
		}
		names = append(names, name)
	}
	flush()
	b.WriteString("\n| refused | why |\n|---|---|\n")
	for _, r := range cdpRules() {
		if r.Allow {
			continue
		}
		name := r.Method
		if !strings.Contains(name, ".") {
			name += ".*"
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", name, r.Why)
	}
	return b.String()
}

// ForeignCookies says why a CDP cookie call (CheckOwnCookies) reaches
// beyond the tab's own origin at tabURL, or "" when it does not.
func ForeignCookies(method string, params json.RawMessage, tabURL string) string {
	tu, err := url.Parse(tabURL)
	if err != nil || (tu.Scheme != "http" && tu.Scheme != "https") || tu.Hostname() == "" {
		return "the tab shows " + cmp.Or(tabURL, "none") + ", which has no cookies"
	}
	host := strings.ToLower(tu.Hostname())
	type cookie struct {
		URL    string  `json:"url"`
		Domain *string `json:"domain"`
	}
	var p struct {
		URLs    *[]string `json:"urls"`
		Cookies []cookie  `json:"cookies"`
		cookie
	}
	if err := jsonv2.Unmarshal(params, &p); err != nil {
		return "its params do not decode: " + err.Error()
	}
	var urls []string
	var domains []string
	// where adds a cookie's url and domain to what is checked; false when
	// it names neither.
	where := func(c cookie) bool {
		if c.URL == "" && c.Domain == nil {
			return false
		}
		if c.URL != "" {
			urls = append(urls, c.URL)
		}
		if c.Domain != nil {
			domains = append(domains, *c.Domain)
		}
		return true
	}
	switch method {
	case network.CommandGetCookies:
		if p.URLs == nil || len(*p.URLs) == 0 {
			return "name the urls (the tab's own origin): without them Chrome answers the cookies of every frame of the page, other origins' too"
		}
		urls = *p.URLs
	case network.CommandSetCookies:
		if len(p.Cookies) == 0 {
			return ""
		}
		for _, c := range p.Cookies {
			if !where(c) {
				return "every cookie needs a url or a domain of the tab's origin"
			}
		}
	default: // setCookie, deleteCookies
		if !where(p.cookie) {
			return "give a url or a domain of the tab's origin"
		}
	}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || strings.ContainsAny(raw, "\\@ \t\r\n") || (u.Scheme != "http" && u.Scheme != "https") || strings.ToLower(u.Hostname()) != host {
			return "url " + raw + " is not of the tab's origin (" + host + ")"
		}
	}
	for _, d := range domains {
		d = strings.ToLower(strings.TrimPrefix(d, "."))
		if d == "" || strings.Trim(d, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" || (host != d && !strings.HasSuffix(host, "."+d)) {
			return "domain " + d + " is not the tab's host (" + host + ") or a parent of it"
		}
	}
	return ""
}

// CheckCDPMethod refuses a CDP method the allow-list does not let a
// paired agent send (CDPRefused).
func CheckCDPMethod(method string) error {
	if r := CDPRuleOf(method); !r.Allow {
		return CDPRefused(method, r.Why)
	}
	return nil
}

// CDPRefused is the error of a raw CDP call a paired agent may not make,
// and why (PROTOCOL.md §3.7.1).
func CDPRefused(method, why string) error {
	return protocol.Errorf(protocol.CodeScopeDenied, "cdp.send: %s is refused to paired agents: %s (PROTOCOL.md §3.7.1)", method, why).
		With("need", NeedCDP.String()).With("method", method).With("why", why)
}

// CDPDestination is goto's check of an address for a raw navigation
// (CheckNavigation): one goto takes as it is (no javascript:, no unknown
// scheme, nothing a parser could read two ways), never a browser,
// DevTools or extension page. It returns the address normalized, for the
// caller's own destination check (the agent's origin rules).
func CDPDestination(method, dest string) (string, error) {
	n, err := weburl.Normalize(dest)
	if err != nil {
		return "", CDPRefused(method, err.Error())
	}
	if n != strings.TrimSpace(dest) {
		return "", CDPRefused(method, "give a full URL ("+n+"), as Chrome needs")
	}
	if weburl.BrowserPage(n) {
		return "", CDPRefused(method, "it goes to a browser, DevTools or extension page ("+n+"), which only the person may open")
	}
	return n, nil
}
