import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, can } from './api.js';
import { ErrorNote, Loading, fmt, useLoad } from './ui.js';
import { Visible } from './visible.js';
import { Counts } from './privacy.js';

// A project's settings page: its name, its message retention (issue 37, docs/privacy.md) and the
// audit trail of erasures and retention sweeps. docs/console.md.

const retentionWords = (days) =>
  days == null ? 'kept (no retention)' : `erased after ${days.toLocaleString('en')} day${days === 1 ? '' : 's'}`;

/** `message_retention_days`: empty is null (keep texts); anything else is sent for the API to judge. */
function RetentionForm({ project, onSaved }) {
  const [days, setDays] = useState(
    project.message_retention_days == null ? '' : String(project.message_retention_days),
  );
  const [error, setError] = useState();
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const v = days.trim();
    const n = Number(v);
    setBusy(true);
    try {
      const p = await api('PUT', `/api/v1/projects/${project.id}`, {
        body: { message_retention_days: v === '' ? null : Number.isFinite(n) ? n : v },
      });
      setError(undefined);
      setSaved(true);
      onSaved(p);
    } catch (err) {
      setError(err);
      setSaved(false);
    } finally {
      setBusy(false);
    }
  };
  const invalid = error?.field === 'message_retention_days';
  return html`<form onSubmit=${submit} aria-labelledby="retention-h">
    <h2 id="retention-h">Message retention</h2>
    <p>Message texts are now <strong>${retentionWords(project.message_retention_days)}</strong>.</p>
    <label for="retention">Erase message texts after (days)</label>
    <input
      id="retention"
      inputmode="numeric"
      autocomplete="off"
      value=${days}
      onInput=${(e) => (setDays(e.currentTarget.value), setSaved(false))}
      aria-invalid=${invalid ? 'true' : undefined}
      aria-describedby="retention-help"
    />
    <p id="retention-help" class="muted small">
      Empty keeps texts for good. Otherwise the worker's sweep erases the text of messages older than this many days (by
      their timestamp), 1 to 36,500; their analysis stays, and each sweep is in the audit trail.
    </p>
    <${ErrorNote} error=${error} />
    <div class="actions">
      <button type="submit" disabled=${busy}>Save retention</button>
      ${saved && html`<span role="status">Saved.</span>`}
    </div>
  </form>`;
}

/**
 * The project's name (PUT with `name` alone, which needs only `projects`; retention also needs
 * `privacy`, so the two are separate forms). The header's picker reads the new name through the
 * `projects-changed` event.
 */
function RenameForm({ project, onSaved }) {
  const [name, setName] = useState(project.name);
  const [error, setError] = useState();
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    try {
      const p = await api('PUT', `/api/v1/projects/${project.id}`, { body: { name: name.trim() } });
      setError(undefined);
      setSaved(true);
      onSaved(p);
      window.dispatchEvent(new Event('projects-changed'));
    } catch (err) {
      setError(err);
      setSaved(false);
    } finally {
      setBusy(false);
    }
  };
  return html`<form onSubmit=${submit} aria-labelledby="rename-h">
    <h2 id="rename-h">Name</h2>
    <label for="project-name">Name of the project</label>
    <input
      id="project-name"
      required
      maxlength="200"
      autocomplete="off"
      value=${name}
      onInput=${(e) => (setName(e.currentTarget.value), setSaved(false))}
      aria-invalid=${error?.field === 'name' ? 'true' : undefined}
    />
    <${ErrorNote} error=${error} />
    <div class="actions">
      <button type="submit" disabled=${busy}>Rename</button>
      ${saved && html`<span role="status">Saved.</span>`}
    </div>
  </form>`;
}

const TRAIL = 50;

/** The erasures and retention sweeps of the project, newest first (reading them needs `privacy`). */
function ErasureTrail({ place }) {
  const trail = useLoad(
    () => api('GET', '/api/v1/erasures', { query: { project_id: place.project, limit: TRAIL } }),
    [place.project],
  );
  const rows = trail.data?.erasures ?? [];
  return html`<section aria-labelledby="trail-h">
    <h2 id="trail-h">Audit trail <span class="muted">(erasures and retention sweeps, newest first)</span></h2>
    <div class="row">
      <button type="button" class="secondary" onClick=${trail.reload}>Refresh the trail</button>
    </div>
    <${ErrorNote} error=${trail.error} />
    ${trail.loading && !trail.data && html`<${Loading} what="the audit trail" />`}
    ${
      trail.data &&
      html`<div class="scroll">
          <table class="trail">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Kind</th>
                <th scope="col">By</th>
                <th scope="col">Removed</th>
              </tr>
            </thead>
            <tbody>
              ${
                rows.length === 0 &&
                html`<tr>
                  <td colspan="4" class="muted">Nothing erased in this project yet.</td>
                </tr>`
              }
              ${rows.map(
                (e) =>
                  html`<tr>
                    <th scope="row">${fmt.time(e.completed_at ?? e.requested_at)}</th>
                    <td>${e.kind}${e.suppressed ? html` <span class="muted">(suppressed)</span>` : ''}</td>
                    <td>
                      ${e.requested_by ? html`key <code><${Visible} text=${e.requested_by} />…</code>` : 'the retention sweep'}
                    </td>
                    <td><${Counts} erasure=${e} /></td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
        ${rows.length === TRAIL && html`<p class="muted small">The latest ${TRAIL} only.</p>`}`
    }
  </section>`;
}

/**
 * The project's settings, each part shown only to a key that may use it: renaming needs
 * `projects`, the trail `privacy`, and retention both (it changes the project and erases texts).
 */
export function ProjectSettings({ place }) {
  const project = useLoad(() => api('GET', `/api/v1/projects/${place.project}`), [place.project]);
  if (project.error) return html`<${ErrorNote} error=${project.error} />`;
  if (!project.data) return html`<${Loading} what="the project" />`;
  const p = project.data;
  const lacks = !can('privacy')
    ? ['privacy', 'Message retention and the audit trail of erasures need']
    : !can('projects')
      ? ['projects', 'Renaming the project and setting its message retention need']
      : undefined;
  return html`<section aria-labelledby="settings-h">
    <h1 id="settings-h">Settings of <${Visible} text=${p.name} /></h1>
    ${can('projects') && html`<${RenameForm} key=${p.id} project=${p} onSaved=${project.reload} />`}
    ${!lacks && html`<${RetentionForm} key=${p.id} project=${p} onSaved=${project.reload} />`}
    ${
      lacks &&
      html`<p class="muted small read-only">${lacks[1]} the scope <code>${lacks[0]}</code>, which this key lacks.</p>`
    }
    ${can('privacy') && html`<${ErasureTrail} place=${place} />`}
  </section>`;
}
