// simple-oauth2 against the running service: the password grant with the
// credentials in HTTP Basic (its strict encoding: %2D, %5F) and in the
// body, refresh, and AccessToken.revoke() / revokeAll() on
// /oauth/revoke, the path it uses by default.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceOwnerPassword } from 'simple-oauth2';
import { loyalty, me } from './loyalty.mjs';

function passwordClient(authorizationMethod) {
  return new ResourceOwnerPassword({
    client: { id: loyalty.passwordClient.id, secret: loyalty.passwordClient.secret },
    auth: { tokenHost: loyalty.url },
    options: { authorizationMethod },
  });
}

async function signIn(client) {
  return client.getToken({
    username: loyalty.owner.email,
    password: loyalty.owner.password,
    scope: 'admin',
    application_key: loyalty.appKey,
  });
}

async function status(accessToken) {
  const res = await me(accessToken);
  await res.arrayBuffer();
  return res.status;
}

for (const method of ['header', 'body']) {
  test(`revoke() the access token, then the refresh token (credentials in the ${method})`, async () => {
    const client = passwordClient(method);
    const first = await signIn(client);
    assert.equal(await status(first.token.access_token), 200);
    await first.revoke('access_token');
    assert.equal(await status(first.token.access_token), 401);

    const second = await signIn(client);
    const rotated = await second.refresh();
    assert.equal(await status(rotated.token.access_token), 200);
    await rotated.revoke('refresh_token');
    assert.equal(await status(rotated.token.access_token), 401);
    await assert.rejects(rotated.refresh(), (err) => err.output?.statusCode === 400 && err.data?.payload?.error === 'invalid_grant');
  });
}

test('revokeAll() ends both tokens', async () => {
  const token = await signIn(passwordClient('header'));
  assert.equal(await status(token.token.access_token), 200);
  await token.revokeAll();
  assert.equal(await status(token.token.access_token), 401);
  await assert.rejects(token.refresh());
});

test('revoking a token of another client leaves it alone', async () => {
  const token = await signIn(passwordClient('header'));
  const stranger = new ResourceOwnerPassword({
    client: { id: loyalty.codeClient.id, secret: loyalty.codeClient.secret },
    auth: { tokenHost: loyalty.url },
  });
  await stranger.createToken(token.token).revoke('access_token');
  assert.equal(await status(token.token.access_token), 200);
});
