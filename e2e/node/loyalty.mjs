// What the Node tests share: the running service's details (from the
// LOYALTY_* variables that strict_clients_test.go sets), a call to the
// business API, and a browser without a screen that signs the owner in
// and approves an app on the consent page by posting its forms.

function need(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set: run these tests through go test ./e2e/node/ (TestStrictClients)`);
  }
  return v;
}

/** The running service and what the Go test created on it. */
export const loyalty = {
  url: need('LOYALTY_URL'),
  appKey: need('LOYALTY_APP_KEY'),
  businessId: need('LOYALTY_BUSINESS_ID'),
  owner: { email: need('LOYALTY_OWNER_EMAIL'), password: need('LOYALTY_OWNER_PASSWORD') },
  passwordClient: { id: need('LOYALTY_PASSWORD_CLIENT_ID'), secret: need('LOYALTY_PASSWORD_CLIENT_SECRET') },
  codeClient: { id: need('LOYALTY_CODE_CLIENT_ID'), secret: need('LOYALTY_CODE_CLIENT_SECRET') },
  redirectUri: need('LOYALTY_REDIRECT_URI'),
};

/** GET /me with an access token and the Application Key. */
export async function me(accessToken) {
  return fetch(new URL('/me', loyalty.url), {
    headers: {
      Authorization: `Bearer ${accessToken}`,
      'X-Application-Key': loyalty.appKey,
      Accept: 'application/vnd.loyalty.api.v1+json',
    },
    redirect: 'manual',
  });
}

const entities = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the character references html/template writes in attributes. */
function unescapeHTML(s) {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (m, ref) => {
    if (ref[0] === '#') {
      return String.fromCodePoint(ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10));
    }
    return entities[ref] ?? m;
  });
}

/** The hidden fields of the page's first form posting to action. */
function hiddenFields(html, action) {
  const start = html.indexOf(`<form method="post" action="${action}">`);
  if (start < 0) {
    throw new Error(`no form posting to ${action} in the page:\n${html.slice(0, 2000)}`);
  }
  const form = html.slice(start, html.indexOf('</form>', start));
  const fields = new URLSearchParams();
  for (const m of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields.append(unescapeHTML(m[1]), unescapeHTML(m[2]));
  }
  if (!fields.get('csrf_token')) {
    throw new Error(`the form posting to ${action} has no csrf_token`);
  }
  return fields;
}

/**
 * A browser without a screen: it keeps the cookies the service sets and
 * follows no redirect by itself.
 */
export class Browser {
  #cookies = new Map();

  async request(url, init = {}) {
    const headers = new Headers(init.headers);
    if (this.#cookies.size > 0) {
      headers.set('Cookie', [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    }
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      if (attrs.some((a) => /^\s*max-age=(-|0$)/i.test(a))) {
        this.#cookies.delete(name);
      } else {
        this.#cookies.set(name, pair.slice(eq + 1).trim());
      }
    }
    return res;
  }

  async get(url) {
    return this.request(url);
  }

  async post(url, fields) {
    return this.request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: fields.toString(),
    });
  }

  /**
   * Walks the owner through /oauth/authorize for authorizationUrl: the
   * sign-in form, then the consent form with Approve. Returns the URL the
   * service redirects to (the app's callback with code and state).
   */
  async approve(authorizationUrl, owner) {
    const base = new URL('/', authorizationUrl);
    let res = await this.get(authorizationUrl);
    let html = await res.text();
    if (res.status !== 200) {
      throw new Error(`GET ${authorizationUrl}: ${res.status}\n${html.slice(0, 2000)}`);
    }
    if (html.includes('name="step" value="signin"')) {
      const fields = hiddenFields(html, '/oauth/authorize');
      fields.set('email', owner.email);
      fields.set('password', owner.password);
      res = await this.post(new URL('/oauth/authorize', base), fields);
      if (res.status !== 303) {
        throw new Error(`sign-in: ${res.status}, want 303\n${(await res.text()).slice(0, 2000)}`);
      }
      res = await this.get(new URL(res.headers.get('location'), base));
      html = await res.text();
      if (res.status !== 200) {
        throw new Error(`consent page: ${res.status}\n${html.slice(0, 2000)}`);
      }
    }
    const fields = hiddenFields(html, '/oauth/authorize');
    fields.set('decision', 'approve');
    res = await this.post(new URL('/oauth/authorize', base), fields);
    if (res.status !== 302) {
      throw new Error(`approve: ${res.status}, want 302\n${(await res.text()).slice(0, 2000)}`);
    }
    return new URL(res.headers.get('location'));
  }
}
