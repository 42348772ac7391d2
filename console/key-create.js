import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { SCOPES, SCOPE_MEANINGS } from '../src/auth/scopes.ts';
import { api, can } from './api.js';
import { ErrorNote, fmt } from './ui.js';
import { Visible } from './visible.js';

/**
 * A new key of the tenant (POST /api/v1/api-keys). Only what the key in use could give is offered:
 * the scopes it holds, every project only when it has every project itself, and no expiry past
 * its own (the API refuses more, 403). "Only this project" is the project picked in the header.
 */
export function CreateKeyForm({ place, me, projectName, onCreated }) {
  const offered = SCOPES.filter(can);
  const [error, setError] = useState();
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const el = e.currentTarget; // gone from the event once the handler awaits
    const form = new FormData(el);
    const scopes = form.getAll('scope');
    if (scopes.length === 0) {
      setError(new Error('Choose at least one scope.'));
      return;
    }
    const expires = String(form.get('expires') ?? '');
    const body = {
      name: String(form.get('name')).trim(),
      scopes,
      projects: form.get('projects') === 'all' ? null : [place.project],
      // Left out when empty: the API then gives the acting key's own expiry, never a later one.
      ...(expires && { expires_at: new Date(expires).toISOString() }),
    };
    setBusy(true);
    try {
      const made = await api('POST', '/api/v1/api-keys', { body });
      setError(undefined);
      el.reset();
      onCreated(made);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  // `${' '}` below: htm drops whitespace that holds a line break, so a space between elements is written out.
  return html`<form class="key-form" onSubmit=${submit} aria-labelledby="new-key-h">
    <h2 id="new-key-h">New key</h2>
    <label for="key-name">Name</label>
    <input id="key-name" name="name" required maxlength="200" autocomplete="off" placeholder="e.g. CRM import" />
    <fieldset class="checks">
      <legend>Scopes <span class="muted">(only those this key holds)</span></legend>
      ${offered.map(
        (s) =>
          html`<label>
            <input type="checkbox" name="scope" value=${s} />${' '}<code>${s}</code>${' '}
            <span class="muted">${SCOPE_MEANINGS[s]}</span>
          </label>`,
      )}
    </fieldset>
    <fieldset class="checks">
      <legend>Projects</legend>
      ${
        me.projects === null &&
        html`<label>
          <input type="radio" name="projects" value="all" />${' '}All projects${' '}
          <span class="muted">(those made later too)</span>
        </label>`
      }
      <label>
        <input type="radio" name="projects" value="this" checked />${' '}Only this project:${' '}
        <strong><${Visible} text=${projectName} /></strong>
      </label>
    </fieldset>
    <label for="key-expires">Expires <span class="muted">(optional)</span></label>
    <input id="key-expires" name="expires" type="datetime-local" aria-describedby="key-expires-help" />
    <p id="key-expires-help" class="muted small">
      ${
        me.expires_at
          ? `Empty: it expires with this key, ${fmt.time(me.expires_at)}; a later time is refused.`
          : 'Empty: it never expires. Revoke it when it is no longer needed.'
      }
    </p>
    <${ErrorNote} error=${error} />
    <button type="submit" disabled=${busy}>Create the key</button>
  </form>`;
}

/**
 * The new key's secret, right after creation: the API answers it once and stores only its hash.
 * It lives in the page's state alone (never in storage), so leaving the page or reloading it
 * loses it for good.
 */
export function NewKeySecret({ made, onDone }) {
  const [copied, setCopied] = useState();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(made.api_key);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser did not allow copying: select the text and copy it yourself.');
    }
  };
  return html`<div class="secret">
    <p role="status">
      <strong>Key “<${Visible} text=${made.name} />” created.</strong> Copy its secret now: it will not be shown again
      (the service keeps only a hash of it).
    </p>
    <label for="new-key-secret">Secret of the new key</label>
    <div class="row">
      <input
        id="new-key-secret"
        readonly
        value=${made.api_key}
        spellcheck=${false}
        autocomplete="off"
        onFocus=${(e) => e.currentTarget.select()}
      />
      <button type="button" onClick=${copy}>Copy</button>
      <button type="button" class="secondary" onClick=${onDone}>Done</button>
    </div>
    ${copied && html`<p role="status" class="small">${copied}</p>`}
  </div>`;
}
