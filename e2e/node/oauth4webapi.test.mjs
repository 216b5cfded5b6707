// oauth4webapi, a strict OAuth 2.0 client, against the running service:
// discovery, the password grant with client_secret_basic and
// client_secret_post, refresh with rotation, the authorization-code flow
// with PKCE, and revocation. No request to the token endpoint carries
// X-Application-Key: the password grant sends application_key in the
// form, the code and refresh grants none at all.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { loyalty, me, Browser } from './loyalty.mjs';

// The service runs on loopback over plain HTTP in this test.
const insecure = { [oauth.allowInsecureRequests]: true };
const issuer = new URL(loyalty.url);

let as;

before(async () => {
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
});

/** The password grant of the business API for the owner. */
async function passwordGrant(auth) {
  const client = { client_id: loyalty.passwordClient.id };
  const res = await oauth.genericTokenEndpointRequest(as, client, auth, 'password', new URLSearchParams({
    username: loyalty.owner.email,
    password: loyalty.owner.password,
    scope: 'admin',
    application_key: loyalty.appKey,
  }), insecure);
  return oauth.processGenericTokenEndpointResponse(as, client, res);
}

/** Asserts that the token works on GET /me for the business. */
async function assertWorks(accessToken) {
  const res = await me(accessToken);
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal((await res.json()).data.id, loyalty.businessId);
}

/** Asserts that the API refuses the token with an invalid_token challenge (RFC 6750). */
async function assertRefused(accessToken) {
  await assert.rejects(
    oauth.protectedResourceRequest(accessToken, 'GET', new URL('/me', loyalty.url),
      new Headers({ 'X-Application-Key': loyalty.appKey }), null, insecure),
    (err) => {
      assert.ok(err instanceof oauth.WWWAuthenticateChallengeError, `${err}`);
      const [challenge] = err.cause;
      assert.equal(challenge.scheme, 'bearer');
      assert.equal(challenge.parameters.error, 'invalid_token');
      assert.ok(challenge.parameters.error_description);
      return true;
    },
  );
}

test('the client secrets contain - and _ (sent as %2D and %5F in HTTP Basic)', () => {
  for (const c of [loyalty.passwordClient, loyalty.codeClient]) {
    assert.match(c.secret, /-/);
    assert.match(c.secret, /_/);
  }
});

describe('discovery (RFC 8414)', () => {
  test('the metadata names the issuer reached and every endpoint under it', () => {
    assert.equal(as.issuer, loyalty.url);
    assert.equal(as.authorization_endpoint, `${loyalty.url}/oauth/authorize`);
    assert.equal(as.token_endpoint, `${loyalty.url}/oauth/token`);
    assert.equal(as.revocation_endpoint, `${loyalty.url}/oauth/revoke`);
    assert.deepEqual([...as.grant_types_supported].sort(), ['authorization_code', 'password', 'refresh_token']);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.deepEqual([...as.token_endpoint_auth_methods_supported].sort(), ['client_secret_basic', 'client_secret_post']);
    assert.deepEqual([...as.revocation_endpoint_auth_methods_supported].sort(), ['client_secret_basic', 'client_secret_post']);
    assert.deepEqual([...as.scopes_supported].sort(), ['admin', 'user']);
  });

  test('another expected issuer is refused', async () => {
    const other = new URL('http://loyalty.invalid');
    const res = await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' });
    await assert.rejects(oauth.processDiscoveryResponse(other, res));
  });
});

describe('password grant', () => {
  test('client_secret_basic', async () => {
    const tokens = await passwordGrant(oauth.ClientSecretBasic(loyalty.passwordClient.secret));
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.expires_in, 86400);
    await assertWorks(tokens.access_token);
  });

  test('client_secret_post', async () => {
    const tokens = await passwordGrant(oauth.ClientSecretPost(loyalty.passwordClient.secret));
    await assertWorks(tokens.access_token);
  });

  test('a wrong secret is refused with a challenge', async () => {
    await assert.rejects(passwordGrant(oauth.ClientSecretBasic(`${loyalty.passwordClient.secret}x`)),
      (err) => err instanceof oauth.WWWAuthenticateChallengeError && err.status === 401);
  });
});

describe('refresh grant', () => {
  test('rotates; the old pair dies; reusing the old refresh token revokes the chain', async () => {
    const client = { client_id: loyalty.passwordClient.id };
    const auth = oauth.ClientSecretBasic(loyalty.passwordClient.secret);
    const first = await passwordGrant(auth);
    const second = await oauth.processRefreshTokenResponse(as, client,
      await oauth.refreshTokenGrantRequest(as, client, auth, first.refresh_token, insecure));
    assert.notEqual(second.access_token, first.access_token);
    assert.notEqual(second.refresh_token, first.refresh_token);
    await assertWorks(second.access_token);
    await assertRefused(first.access_token);

    const reuse = await oauth.refreshTokenGrantRequest(as, client, auth, first.refresh_token, insecure);
    await assert.rejects(oauth.processRefreshTokenResponse(as, client, reuse),
      (err) => err instanceof oauth.ResponseBodyError && err.error === 'invalid_grant');
    await assertRefused(second.access_token);
  });
});

describe('authorization-code grant with PKCE', () => {
  test('sign in, approve, exchange and refresh without an Application Key', async () => {
    const client = { client_id: loyalty.codeClient.id };
    const auth = oauth.ClientSecretBasic(loyalty.codeClient.secret);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: loyalty.redirectUri,
      response_type: 'code',
      scope: 'admin',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();

    const callback = await new Browser().approve(url, loyalty.owner);
    assert.equal(`${callback.origin}${callback.pathname}`, loyalty.redirectUri);
    const params = oauth.validateAuthResponse(as, client, callback, state);

    // A wrong verifier is refused and does not burn the code.
    const wrong = await oauth.authorizationCodeGrantRequest(as, client, auth, params, loyalty.redirectUri,
      oauth.generateRandomCodeVerifier(), insecure);
    await assert.rejects(oauth.processAuthorizationCodeResponse(as, client, wrong),
      (err) => err instanceof oauth.ResponseBodyError && err.error === 'invalid_grant');

    const tokens = await oauth.processAuthorizationCodeResponse(as, client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, params, loyalty.redirectUri, verifier, insecure));
    await assertWorks(tokens.access_token);

    const next = await oauth.processRefreshTokenResponse(as, client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretPost(loyalty.codeClient.secret), tokens.refresh_token, insecure));
    await assertWorks(next.access_token);
    await assertRefused(tokens.access_token);
  });
});

describe('revocation (RFC 7009)', () => {
  test('an access token, then a refresh token', async () => {
    const client = { client_id: loyalty.passwordClient.id };
    const auth = oauth.ClientSecretBasic(loyalty.passwordClient.secret);
    const a = await passwordGrant(auth);
    await assertWorks(a.access_token);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, a.access_token, insecure));
    await assertRefused(a.access_token);

    const b = await passwordGrant(auth);
    await assertWorks(b.access_token);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client,
      oauth.ClientSecretPost(loyalty.passwordClient.secret), b.refresh_token, { ...insecure, additionalParameters: { token_type_hint: 'refresh_token' } }));
    await assertRefused(b.access_token);
    await assert.rejects(oauth.processRefreshTokenResponse(as, client,
      await oauth.refreshTokenGrantRequest(as, client, auth, b.refresh_token, insecure)),
    (err) => err instanceof oauth.ResponseBodyError && err.error === 'invalid_grant');

    // Unknown tokens are 200 as well.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, 'no-such-token', insecure));
  });
});
