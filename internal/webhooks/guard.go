package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// Resolver looks host names up (net.DefaultResolver does).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard keeps deliveries away from the service's own network (SSRF):
// URLs whose host resolves to a loopback, private, link-local (the cloud
// metadata address 169.254.169.254 among them), unspecified, multicast or
// shared (CGNAT) address are refused when an endpoint is saved, and the
// dialer checks the address it actually connects to, since a name may
// resolve elsewhere by the time of a delivery. AllowPrivate lifts the
// rule (development, tests) and allows plain http.
type Guard struct {
	AllowPrivate bool
	// Resolver looks names up when an endpoint is saved; nil:
	// net.DefaultResolver. Deliveries always dial through the system's.
	Resolver Resolver
}

// blocked are the ranges netip's predicates do not name.
var blocked = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"),      // shared address space (CGNAT), RFC 6598
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network"
	netip.MustParsePrefix("255.255.255.255/32"), // broadcast
}

// Refusal says why an address is not one deliveries may reach, or "".
func Refusal(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsPrivate():
		return "a private address"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "a link-local address (cloud metadata lives there)"
	case ip.IsUnspecified():
		return "the unspecified address"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	for _, p := range blocked {
		if p.Contains(ip) {
			return "a reserved address"
		}
	}
	return ""
}

// CheckURL refuses a URL deliveries may not go to: another scheme than
// https (or http, with AllowPrivate), or a host resolving to an address
// Refusal names. Its error message is meant for the client.
func (g Guard) CheckURL(ctx context.Context, u *url.URL) error {
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && g.AllowPrivate:
	case u.Scheme == "http":
		return errors.New("The url must use https.")
	default:
		return errors.New("The url must be an https URL.")
	}
	if g.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	addrs, err := g.lookup(ctx, host)
	if err != nil {
		return fmt.Errorf("The url's host %q could not be resolved.", host)
	}
	for _, a := range addrs {
		if why := Refusal(a); why != "" {
			return fmt.Errorf("The url's host resolves to %s, %s: webhooks are only sent to public addresses.", a.Unmap(), why)
		}
	}
	return nil
}

// lookup resolves host, or reads it when it is an address.
func (g Guard) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	var r Resolver = net.DefaultResolver
	if g.Resolver != nil {
		r = g.Resolver
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err == nil && len(addrs) == 0 {
		err = errors.New("no address")
	}
	return addrs, err
}

// ErrRefusedAddress is the dial error of a delivery to an address the
// guard refuses.
var ErrRefusedAddress = errors.New("refused address")

// control is the dialer's Control hook: it runs after the name was
// resolved, on the address about to be connected to.
func (g Guard) control(_, address string, _ syscall.RawConn) error {
	if g.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrRefusedAddress, address)
	}
	if why := Refusal(ap.Addr()); why != "" {
		return fmt.Errorf("%w %s: %s", ErrRefusedAddress, ap.Addr().Unmap(), why)
	}
	return nil
}
