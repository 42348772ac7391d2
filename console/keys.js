import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { SCOPES } from '../src/auth/scopes.ts';
import { api, can } from './api.js';
import { ErrorNote, Loading, fmt, useLoad } from './ui.js';
import { Visible } from './visible.js';
import { CreateKeyForm, NewKeySecret } from './key-create.js';

/**
 * The tenant's API keys (issue 48, docs/api.md "API keys and scopes"): the keys this key can see,
 * a new one made (its secret shown once), one revoked, and the audit trail of both. Needs `keys`.
 */
const TRAIL = 50;

/** `admin` is the operator's token; any other actor or creator is the acting key's prefix. */
const actor = (who) => (who === 'admin' ? 'the operator' : html`key <code><${Visible} text=${who} />…</code>`);

// One text node: htm drops the whitespace around a line break, so a wrapped sentence would lose its space.
const OWN_KEY_TICK = 'This is the key this console uses: revoke it and sign out';

/**
 * Revoke, behind a confirmation. A key may revoke itself (the console then signs out on its next
 * call, api.js), so that one asks for a tick saying so: a slip here locks the user out.
 */
function Revoke({ k, own, onRevoked }) {
  const [asking, setAsking] = useState(false);
  const [sure, setSure] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState();
  const revoke = async () => {
    setBusy(true);
    try {
      await api('DELETE', `/api/v1/api-keys/${encodeURIComponent(k.id)}`);
      setError(undefined);
      onRevoked();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  if (!asking)
    return html`<button
      type="button"
      class="secondary"
      aria-label=${`Revoke ${k.name}`}
      onClick=${() => setAsking(true)}
    >
      Revoke
    </button>`;
  return html`<div class="confirm" role="group" aria-label=${`Revoke ${k.name}?`}>
    <p class="small">Whatever uses this key is refused from its next request. This cannot be undone.</p>
    ${
      own &&
      html`<label class="check">
        <input type="checkbox" checked=${sure} onChange=${(e) => setSure(e.currentTarget.checked)} />${' '}
        ${OWN_KEY_TICK}
      </label>`
    }
    <div class="actions">
      <button type="button" class="danger" disabled=${busy || (own && !sure)} onClick=${revoke}>Revoke the key</button>
      <button type="button" class="secondary" onClick=${() => (setAsking(false), setSure(false))}>Cancel</button>
    </div>
    <${ErrorNote} error=${error} />
  </div>`;
}

function KeyRow({ k, me, projectNames, onRevoked }) {
  const own = k.id === me.id;
  // The API lets a key revoke itself or a key no wider than itself: only those get the button.
  const revocable = own || k.scopes.every(can);
  return html`<tr>
    <th scope="row"><${Visible} text=${k.name} />${own && html` <span class="muted">(this key)</span>`}</th>
    <td><code>${k.prefix}…</code></td>
    <td>
      ${
        k.scopes.length === SCOPES.length
          ? 'every scope'
          : html`<ul class="scopes" aria-label="Scopes">
              ${k.scopes.map((s) => html`<li><code>${s}</code></li>`)}
            </ul>`
      }
    </td>
    <td>
      ${
        k.projects === null
          ? 'all projects'
          : k.projects.map(
              (id, i) => html`${i > 0 && ', '}<${Visible} text=${projectNames.get(id) ?? `project ${id}`} />`,
            )
      }
    </td>
    <td>${actor(k.created_by)}</td>
    <td>${fmt.time(k.created_at)}</td>
    <td>${k.last_used_at ? fmt.time(k.last_used_at) : 'never'}</td>
    <td>${k.expires_at ? fmt.time(k.expires_at) : 'never'}</td>
    <td>${revocable && html`<${Revoke} k=${k} own=${own} onRevoked=${onRevoked} />`}</td>
  </tr>`;
}

function KeyTable({ keys, me, projectNames, onRevoked }) {
  return html`<div class="scroll">
    <table class="keys" aria-label="API keys">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Prefix</th>
          <th scope="col">Scopes</th>
          <th scope="col">Projects</th>
          <th scope="col">Created by</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Expires</th>
          <th scope="col"><span class="sr-only">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${keys.map(
          (k) => html`<${KeyRow} key=${k.id} k=${k} me=${me} projectNames=${projectNames} onRevoked=${onRevoked} />`,
        )}
      </tbody>
    </table>
  </div>`;
}

function KeyEvents({ events }) {
  if (events.error) return html`<${ErrorNote} error=${events.error} />`;
  if (!events.data) return html`<${Loading} what="the audit trail" />`;
  const rows = events.data.events;
  return html`<div class="scroll">
      <table class="trail" aria-label="Key audit trail">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            <th scope="col">Key</th>
            <th scope="col">By</th>
          </tr>
        </thead>
        <tbody>
          ${
            rows.length === 0 &&
            html`<tr>
              <td colspan="4" class="muted">No key made or revoked yet.</td>
            </tr>`
          }
          ${rows.map(
            (e) =>
              html`<tr>
                <th scope="row">${fmt.time(e.at)}</th>
                <td>${e.action}</td>
                <td><${Visible} text=${e.key_name} /> <code>${e.key_prefix}…</code></td>
                <td>${actor(e.actor)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${rows.length === TRAIL && html`<p class="muted small">The latest ${TRAIL} only.</p>`}`;
}

export function KeysPage({ place, me }) {
  const keys = useLoad(() => api('GET', '/api/v1/api-keys'), []);
  const events = useLoad(() => api('GET', '/api/v1/api-keys/events', { query: { limit: TRAIL } }), []);
  const projects = useLoad(() => api('GET', '/api/v1/projects'), []);
  const projectNames = new Map((projects.data?.projects ?? []).map((p) => [p.id, p.name]));
  // The secret of the key just made: this component's state only, gone when the page is left.
  const [made, setMade] = useState();
  const changed = () => (keys.reload(), events.reload());
  return html`<section aria-labelledby="keys-h">
    <h1 id="keys-h">API keys</h1>
    <p class="muted">
      Each key holds some scopes on some projects. A key makes and revokes only keys no wider than itself. To rotate a
      key: make its replacement, move your systems to it, then revoke the old one.
    </p>
    <${ErrorNote} error=${keys.error} />
    ${keys.loading && !keys.data && html`<${Loading} what="the keys" />`}
    ${
      keys.data &&
      html`<${KeyTable} keys=${keys.data.keys} me=${me} projectNames=${projectNames} onRevoked=${changed} />`
    }
    ${made && html`<${NewKeySecret} key=${made.id} made=${made} onDone=${() => setMade(undefined)} />`}
    <${CreateKeyForm}
      place=${place}
      me=${me}
      projectName=${projectNames.get(place.project) ?? `project ${place.project}`}
      onCreated=${(k) => (setMade(k), changed())}
    />
    <section aria-labelledby="key-trail-h">
      <h2 id="key-trail-h">Audit trail <span class="muted">(keys made and revoked, newest first)</span></h2>
      <div class="row">
        <button type="button" class="secondary" onClick=${events.reload}>Refresh the trail</button>
      </div>
      <${KeyEvents} events=${events} />
    </section>
  </section>`;
}
