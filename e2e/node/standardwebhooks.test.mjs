// npm's standardwebhooks (the Standard Webhooks reference library for
// JavaScript) verifies real deliveries of the running service: a receiver
// on loopback (the Go test serves with --webhooks-allow-private) gets the
// events of an endpoint created through the API, and the library accepts
// each under the endpoint's secret, and refuses it under another secret,
// with a changed body or once its timestamp is old. After a rotation, a
// delivery verifies under both the old and the new secret.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { loyalty } from './loyalty.mjs';

/** An owner's access token, by the password grant. */
async function ownerToken() {
  const res = await fetch(new URL('/oauth/token', loyalty.url), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Application-Key': loyalty.appKey },
    body: new URLSearchParams({
      grant_type: 'password', username: loyalty.owner.email, password: loyalty.owner.password, scope: 'admin',
      client_id: loyalty.passwordClient.id, client_secret: loyalty.passwordClient.secret, application_key: loyalty.appKey,
    }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()).access_token;
}

/** A call of the business API, answering its JSON body. */
async function call(token, method, path, body, want) {
  const res = await fetch(new URL(path, loyalty.url), {
    method,
    headers: { Authorization: `Bearer ${token}`, 'X-Application-Key': loyalty.appKey, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, want, `${method} ${path}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** A receiver on 127.0.0.1 keeping each request's headers and raw body. */
async function receiver() {
  const hits = [];
  const waiting = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
      while (waiting.length && hits.length >= waiting[0].n) waiting.shift().resolve();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    hits,
    /** Resolves once n requests came, or fails after 15 s. */
    async wait(n) {
      if (hits.length >= n) return;
      await new Promise((resolve, reject) => {
        waiting.push({ n, resolve });
        setTimeout(() => reject(new Error(`the receiver got ${hits.length} requests, want ${n}`)), 15000).unref();
      });
    },
    close: () => server.close(),
  };
}

test('standardwebhooks verifies deliveries, refuses forgeries, and accepts both secrets during a rotation', async () => {
  const token = await ownerToken();
  const rc = await receiver();
  try {
    const created = await call(token, 'POST', '/webhooks', { url: rc.url, event_types: ['customer.created'] }, 201);
    const secret = created.data.secret;
    const hook = new Webhook(secret);

    const customer = await call(token, 'POST', '/customers', { email: 'node-hooks@strict.example' }, 200);
    await rc.wait(1);
    const first = rc.hits[0];
    const payload = hook.verify(first.body, first.headers);
    assert.equal(payload.id, first.headers['webhook-id']);
    assert.equal(payload.type, 'customer.created');
    assert.equal(payload.business_id, loyalty.businessId);
    assert.equal(payload.data.id, customer.data.id);

    // The same event as GET /events gives it.
    const feed = await call(token, 'GET', '/events?type=customer.created', undefined, 200);
    assert.deepEqual(feed.data.find((e) => e.id === payload.id), payload);

    const other = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
    assert.throws(() => other.verify(first.body, first.headers), WebhookVerificationError);
    assert.throws(() => hook.verify(first.body.replace('customer.created', 'customer.deleted'), first.headers), WebhookVerificationError);
    const realNow = Date.now;
    Date.now = () => realNow() + 10 * 60 * 1000;
    try {
      assert.throws(() => hook.verify(first.body, first.headers), /too old/);
    } finally {
      Date.now = realNow;
    }

    const rotated = await call(token, 'POST', `/webhooks/${created.data.id}/rotate-secret`, { overlap_seconds: 3600 }, 200);
    assert.notEqual(rotated.data.secret, secret);
    await call(token, 'POST', '/customers', { email: 'node-hooks-2@strict.example' }, 200);
    await rc.wait(2);
    const second = rc.hits[1];
    assert.equal(second.headers['webhook-signature'].split(' ').length, 2);
    assert.equal(hook.verify(second.body, second.headers).type, 'customer.created');
    assert.equal(new Webhook(rotated.data.secret).verify(second.body, second.headers).type, 'customer.created');
  } finally {
    rc.close();
  }
});
