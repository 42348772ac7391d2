import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, can, pipelinePath } from './api.js';
import { ReadOnlyNote } from './access.js';
import { ErrorNote, Loading, fmt, useLoad } from './ui.js';
import { Visible } from './visible.js';

const hookHref = (id, eventId) => `#/webhooks/${id}${eventId ? `/${eventId}` : ''}`;
const EVENTS = ['user_added', 'user_removed'];

/**
 * A random signing secret made in the browser (the API stores it sealed and never shows it again).
 * No `whsec_` prefix: the service keys its HMAC with the secret's own bytes, and a Standard
 * Webhooks library would read such a prefix as base64 to decode (docs/api.md, signatures).
 */
function newSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replace(/[+/=]/g, '');
}

/** Shown once, right after the API took it: copy it now. */
function SecretOnce({ secret, what }) {
  if (!secret) return null;
  return html`<div class="secret" role="status">
    <p><strong>${what}</strong> It is shown only now: the service keeps it sealed and never returns it.</p>
    <code class="secret-value"><${Visible} text=${secret} /></code>
  </div>`;
}

function CreateWebhook({ place, onCreated }) {
  const [error, setError] = useState();
  const [secret, setSecret] = useState(newSecret());
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const el = e.currentTarget; // gone from the event once the handler awaits
    const form = new FormData(el);
    const events = EVENTS.filter((ev) => form.get(ev));
    // Sent as chosen: without `events` the API would subscribe the webhook to every event type.
    if (events.length === 0) {
      setError(new Error('Choose at least one event.'));
      return;
    }
    setBusy(true);
    try {
      const hook = await api('POST', `${pipelinePath(place)}/webhooks`, {
        body: { url: form.get('url'), secret: secret || undefined, events },
      });
      setError(undefined);
      onCreated(hook, secret);
      setSecret(newSecret());
      el.reset();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="webhook-form" onSubmit=${submit} aria-label="New webhook">
    <h2>New webhook</h2>
    <label for="wh-url">HTTPS URL</label>
    <input
      id="wh-url"
      name="url"
      type="url"
      required
      pattern="https://.*"
      placeholder="https://example.com/hooks"
      aria-describedby="wh-url-help"
    />
    <p id="wh-url-help" class="muted small">
      HTTPS only; private and loopback addresses are refused unless the service allows them.
    </p>
    <fieldset>
      <legend>Events</legend>
      ${EVENTS.map((ev) => html`<label class="inline"><input type="checkbox" name=${ev} checked /> ${ev}</label>`)}
    </fieldset>
    <label for="wh-secret">Signing secret</label>
    <div class="row">
      <input
        id="wh-secret"
        name="secret"
        value=${secret}
        onInput=${(e) => setSecret(e.currentTarget.value)}
        spellcheck=${false}
        autocomplete="off"
      />
      <button type="button" class="secondary" onClick=${() => setSecret(newSecret())}>New secret</button>
    </div>
    <${ErrorNote} error=${error} />
    <button type="submit" disabled=${busy}>Create the webhook</button>
  </form>`;
}

export function WebhookList({ place }) {
  const base = `${pipelinePath(place)}/webhooks`;
  const list = useLoad(() => api('GET', base), [base]);
  const [created, setCreated] = useState();
  return html`<section aria-labelledby="webhooks-h">
    <h1 id="webhooks-h">Webhooks</h1>
    <${ErrorNote} error=${list.error} />
    ${list.loading && !list.data && html`<${Loading} what="webhooks" />`}
    ${created && html`<${SecretOnce} secret=${created.secret} what=${`Webhook ${created.hook.id} created with this signing secret.`} />`}
    ${
      list.data &&
      html`<div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Webhook</th>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">State</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            ${
              list.data.length === 0 &&
              html`<tr>
                <td colspan="5" class="muted">No webhook in this pipeline yet.</td>
              </tr>`
            }
            ${list.data.map(
              (w) =>
                html`<tr>
                  <th scope="row"><a href=${hookHref(w.id)}>Webhook ${w.id}</a></th>
                  <td class="url"><${Visible} text=${w.url} /></td>
                  <td>${w.events.join(', ')}</td>
                  <td>
                    <span class=${`state ${w.is_active ? 'active' : 'inactive'}`}
                      >${w.is_active ? 'active' : 'inactive'}</span
                    >
                  </td>
                  <td>${fmt.time(w.created_at)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>`
    }
    ${
      can('webhooks:write')
        ? html`<${CreateWebhook}
            place=${place}
            onCreated=${(hook, secret) => (setCreated({ hook, secret }), list.reload())}
          />`
        : html`<${ReadOnlyNote} lacks="webhooks:write" what="creating a webhook" />`
    }
  </section>`;
}

/** The secret's rotation: whether the previous secret still signs, and until when. */
function Rotation({ hook, base, onChange }) {
  const [secret, setSecret] = useState();
  const [error, setError] = useState();
  const overlap = hook.previous_secret_expires_at && Date.parse(hook.previous_secret_expires_at) > Date.now();
  const run = async (path) => {
    try {
      const r = await api('POST', `${base}/${path}`);
      setError(undefined);
      if (r && r.secret) setSecret(r.secret);
      onChange();
    } catch (err) {
      setError(err);
    }
  };
  return html`<section aria-labelledby="rot-h">
    <h2 id="rot-h">Signing secret</h2>
    <p>
      ${
        overlap
          ? html`Rotation under way: the previous secret also signs until
              <strong>${fmt.time(hook.previous_secret_expires_at)}</strong>.`
          : 'One secret signs every request (no rotation under way).'
      }
    </p>
    ${
      can('webhooks:write') &&
      html`<div class="actions">
        <button type="button" class="secondary" disabled=${overlap} onClick=${() => run('rotate-secret')}>
          Rotate the secret
        </button>
        ${overlap && html`<button type="button" class="secondary" onClick=${() => run('end-secret-overlap')}>End the overlap now</button>`}
      </div>`
    }
    <${SecretOnce} secret=${secret} what="The new signing secret." />
    <${ErrorNote} error=${error} />
  </section>`;
}

function Recover({ base, onDone }) {
  const [result, setResult] = useState();
  const [error, setError] = useState();
  const submit = async (e) => {
    e.preventDefault();
    const since = new FormData(e.currentTarget).get('since');
    try {
      const r = await api('POST', `${base}/recover`, { body: { since: new Date(since).toISOString() } });
      setError(undefined);
      setResult(r);
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="row recover" onSubmit=${submit} aria-label="Recover failed events">
    <label for="rec-since">Send again every event that failed since</label>
    <input id="rec-since" name="since" type="datetime-local" required />
    <button type="submit" class="secondary">Recover</button>
    ${result && html`<p role="status">${result.events} events queued again; ${result.already_recovering} already being re-sent.</p>`}
    <${ErrorNote} error=${error} />
  </form>`;
}

function DeliveryRow({ d, base, onResent }) {
  const [state, setState] = useState();
  const resend = async () => {
    try {
      await api('POST', `${base}/deliveries/${d.id}/resend`);
      setState({ ok: true });
      onResent();
    } catch (err) {
      setState({ error: err });
    }
  };
  return html`<tr>
    <td>${fmt.time(d.created_at)}</td>
    <td>
      <a href=${hookHref(d.webhook_id, d.event_id)}>event ${d.event_id}</a
      >${d.attempt ? html` <span class="muted">#${d.attempt}</span>` : ''}
    </td>
    <td><span class=${`status ${d.status}`}>${d.status}</span></td>
    <td>${d.status_code || '—'}</td>
    <td>${d.duration_ms} ms</td>
    <td class="body">
      <code><${Visible} text=${d.response_body.slice(0, 120) || '—'} multiline /></code>
    </td>
    ${
      can('webhooks:write') &&
      html`<td>
        <button type="button" class="secondary" aria-label=${`Resend event ${d.event_id}`} onClick=${resend}>
          Resend
        </button>
        ${state?.ok && html`<span role="status" class="small"> resent</span>`}
        <${ErrorNote} error=${state?.error} />
      </td>`
    }
  </tr>`;
}

/** One event's attempts, oldest first, as a timeline (as Convoy shows a delivery). */
function AttemptTimeline({ base, eventId }) {
  const attempts = useLoad(
    () => api('GET', `${base}/deliveries`, { query: { event_id: eventId, limit: 200 } }),
    [base, eventId],
  );
  if (attempts.error) return html`<${ErrorNote} error=${attempts.error} />`;
  if (!attempts.data) return html`<${Loading} what="attempts" />`;
  const list = [...attempts.data].reverse();
  return html`<section aria-labelledby="att-h">
    <h2 id="att-h">Event <${Visible} text=${eventId} />: ${list.length} attempt${list.length === 1 ? '' : 's'}</h2>
    <p><a href=${hookHref(list[0]?.webhook_id ?? '')}>← All deliveries</a></p>
    <ol class="attempts">
      ${list.map(
        (d, i) =>
          html`<li class=${d.status}>
            <h3>
              Attempt ${d.attempt ?? i + 1}:
              <span class=${`status ${d.status}`}>${d.status}</span>${d.status_code ? ` · HTTP ${d.status_code}` : ''} ·
              ${d.duration_ms} ms
            </h3>
            <p class="muted">${fmt.time(d.created_at)}${d.final ? ' · final attempt' : ''}</p>
            ${
              d.request_headers &&
              html`<details>
                <summary>Request headers</summary>
                <dl class="headers">
                  ${Object.entries(d.request_headers).map(
                    ([k, v]) =>
                      html`<div>
                        <dt><${Visible} text=${k} /></dt>
                        <dd>
                          <code><${Visible} text=${v} /></code>
                        </dd>
                      </div>`,
                  )}
                </dl>
              </details>`
            }
            <div>
              <span class="muted">Response body</span>
              <code class="body"><${Visible} text=${d.response_body.slice(0, 500) || '(empty)'} multiline /></code>
            </div>
            ${d.retry_after_ms != null && html`<p>The receiver asked to wait ${Math.round(d.retry_after_ms / 1000)} s (Retry-After).</p>`}
            ${d.next_attempt_at && html`<p>Next attempt at: <strong>${fmt.time(d.next_attempt_at)}</strong></p>`}
          </li>`,
      )}
    </ol>
  </section>`;
}

export function WebhookPage({ place, webhookId, eventId }) {
  const base = `${pipelinePath(place)}/webhooks/${webhookId}`;
  const hook = useLoad(() => api('GET', base), [base]);
  const [status, setStatus] = useState('');
  const deliveries = useLoad(() => api('GET', `${base}/deliveries`, { query: { status, limit: 50 } }), [base, status]);
  const [error, setError] = useState();
  const setActive = async (is_active) => {
    try {
      await api('PUT', base, { body: { is_active } });
      setError(undefined);
      hook.reload();
    } catch (err) {
      setError(err);
    }
  };
  const ping = async () => {
    try {
      await api('POST', `${base}/test`);
      setError(undefined);
      setTimeout(deliveries.reload, 1500);
    } catch (err) {
      setError(err);
    }
  };
  if (hook.error)
    return html`<p><a href="#/webhooks">← Webhooks</a></p>
      <${ErrorNote} error=${hook.error} />`;
  if (!hook.data) return html`<${Loading} what="the webhook" />`;
  const w = hook.data;
  const writable = can('webhooks:write');
  if (eventId)
    return html`<p><a href="#/webhooks">← Webhooks</a></p>
      <${AttemptTimeline} base=${base} eventId=${eventId} />`;
  return html`<article aria-labelledby="wh-h">
    <p><a href="#/webhooks">← Webhooks</a></p>
    <h1 id="wh-h">
      Webhook ${w.id}
      <span class=${`state ${w.is_active ? 'active' : 'inactive'}`}>${w.is_active ? 'active' : 'inactive'}</span>
    </h1>
    <p class="url"><${Visible} text=${w.url} /></p>
    ${w.disabled_reason && html`<p class="error">Deactivated by the service: <${Visible} text=${w.disabled_reason} /></p>`}
    ${
      writable
        ? html`<div class="actions">
            ${
              w.is_active
                ? html`<button type="button" onClick=${() => setActive(false)}>Deactivate</button>`
                : html`<button type="button" onClick=${() => setActive(true)}>Activate</button>`
            }
            <button type="button" class="secondary" onClick=${ping}>Send a test event</button>
          </div>`
        : html`<${ReadOnlyNote}
            lacks="webhooks:write"
            what="activating, testing, rotating, resending or recovering a webhook"
          />`
    }
    <${ErrorNote} error=${error} />
    <${Rotation} hook=${w} base=${base} onChange=${hook.reload} />
    <section aria-labelledby="del-h">
      <h2 id="del-h">Recent deliveries</h2>
      <div class="row">
        <label for="del-status">Status</label>
        <select id="del-status" value=${status} onChange=${(e) => setStatus(e.currentTarget.value)}>
          <option value="">all</option>
          <option value="success">success</option>
          <option value="failed">failed</option>
        </select>
        <button type="button" class="secondary" onClick=${deliveries.reload}>Refresh</button>
      </div>
      <${ErrorNote} error=${deliveries.error} />
      ${
        deliveries.data &&
        html`<div class="scroll">
          <table class="deliveries">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Code</th>
                <th scope="col">Duration</th>
                <th scope="col">Response body</th>
                ${writable && html`<th scope="col"><span class="sr-only">Actions</span></th>`}
              </tr>
            </thead>
            <tbody>
              ${
                deliveries.data.length === 0 &&
                html`<tr>
                  <td colspan=${writable ? 7 : 6} class="muted">No delivery yet.</td>
                </tr>`
              }
              ${deliveries.data.map((d) => html`<${DeliveryRow} key=${d.id} d=${d} base=${base} onResent=${() => setTimeout(deliveries.reload, 1500)} />`)}
            </tbody>
          </table>
        </div>`
      }
      ${writable && html`<${Recover} base=${base} onDone=${() => setTimeout(deliveries.reload, 1500)} />`}
    </section>
  </article>`;
}
