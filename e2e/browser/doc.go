// Package browser drives the service's pages in a real headless Chromium
// (chromedp): the developer portal, support's app review, and the owner's
// sign-in and consent in the authorization-code flow, ending with a
// golang.org/x/oauth2 client exchanging the code. Without Chromium the
// tests are skipped; .ci/run installs it.
package browser
