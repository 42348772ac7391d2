import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, apiBlob, saveBlob } from './api.js';
import { ErrorNote } from './ui.js';
import { UserId, visibleText } from './visible.js';

// A user's data rights (issue 37, docs/privacy.md): export and erase on a profile's page; the
// project's retention and its audit trail are on the settings page (settings.js). docs/console.md.

/** An erasure's counts in words, largest kinds first; a retention sweep erases texts, not messages. */
const COUNTS = [
  ['messages', 'message', 'messages'],
  ['batch_items', 'batch item', 'batch items'],
  ['profiles', 'profile', 'profiles'],
  ['memberships', 'segment membership', 'segment memberships'],
  ['events', 'earlier event', 'earlier events'],
  ['user_removed_events', 'user_removed event', 'user_removed events'],
];

export function Counts({ erasure }) {
  const c = erasure.counts ?? {};
  const retention = erasure.kind === 'retention';
  return html`<ul class="counts" aria-label="Removed">
    ${COUNTS.filter(([k]) => !retention || k === 'messages').map(([k, one, many]) => {
      const n = Number(c[k] ?? 0);
      const words = retention ? (n === 1 ? 'message text' : 'message texts') : n === 1 ? one : many;
      return html`<li>${n.toLocaleString('en')} ${words}</li>`;
    })}
  </ul>`;
}

/** A file name without what a file system (or a reader) could take for something else. */
const fileSafe = (s) => s.replace(/[^\p{L}\p{N}._-]/gu, '_').slice(0, 100);

/**
 * Export and erase, at the foot of a profile's page. Erasing asks for the user id typed exactly,
 * as stored or as the page writes it out (an id with a hidden character: `admin⟨U+202E⟩gnp.exe`);
 * the button stays disabled until then. The DELETE names the page's id, never what was typed.
 * `onErased(erasure, userId)` once the API has answered: the profile is gone, the caller leaves.
 */
export function ProfileDataRights({ place, userId, onErased }) {
  const [typed, setTyped] = useState('');
  const [suppress, setSuppress] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState();
  const [exported, setExported] = useState();
  const path = `/api/v1/profiles/${encodeURIComponent(userId)}`;
  const confirmed = typed === userId || typed === visibleText(userId);
  const exportIt = async () => {
    setBusy(true);
    try {
      const blob = await apiBlob(`${path}/export`, { query: { project_id: place.project } });
      // The document is streamed: one cut short mid-way is refused here, never saved as if whole.
      try {
        JSON.parse(await blob.text());
      } catch {
        throw new Error('The export was cut short on its way: nothing was saved. Try again.');
      }
      const name = `profile-${fileSafe(userId)}.json`;
      saveBlob(blob, name);
      setError(undefined);
      setExported(name);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const erase = async (e) => {
    e.preventDefault();
    if (!confirmed) return;
    setBusy(true);
    try {
      const erasure = await api('DELETE', path, {
        query: { project_id: place.project, suppress: String(suppress) },
      });
      onErased(erasure, userId);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return html`<section aria-labelledby="rights-h" class="rights">
    <h2 id="rights-h">This user's data</h2>
    <div class="actions">
      <button type="button" class="secondary" disabled=${busy} onClick=${exportIt}>Export</button>
    </div>
    <p class="muted small">
      Export: one JSON document with everything stored about this user (profile, attributes, memberships, events,
      messages with their texts, items not analysed yet).
    </p>
    ${exported && html`<p role="status">Exported as <code>${exported}</code>.</p>`}
    <form class="erase" onSubmit=${erase} aria-label="Erase this user">
      <h3>Erase</h3>
      <p>Deletes this user's messages, profile and segment memberships, and blanks their items in stored batches.</p>
      <p>Each segment they were in gets a <code>user_removed</code> event (reason <code>erased</code>).</p>
      <p>It cannot be undone: the project's audit trail keeps the counts, never the data.</p>
      <label for="erase-confirm">Type the user id to confirm: <${UserId} id=${userId} /></label>
      <input
        id="erase-confirm"
        value=${typed}
        onInput=${(e) => setTyped(e.currentTarget.value)}
        autocomplete="off"
        spellcheck=${false}
      />
      <label class="inline">
        <input type="checkbox" checked=${suppress} onChange=${(e) => setSuppress(e.currentTarget.checked)} />
        Also suppress this id in later batches
      </label>
      <div class="actions">
        <button type="submit" class="danger" disabled=${busy || !confirmed}>Erase</button>
      </div>
    </form>
    <${ErrorNote} error=${error} />
  </section>`;
}

/** On the profile list, after an erasure: who went and what was removed. */
export function ErasedNote({ erased, onDismiss }) {
  if (!erased) return null;
  const { erasure, userId } = erased;
  return html`<div class="notice" role="status">
    <p>
      <strong>Erased <${UserId} id=${userId} /></strong>${erasure.suppressed ? ' and suppressed in later batches' : ''}.
      Removed:
    </p>
    <${Counts} erasure=${erasure} />
    <button type="button" class="link" onClick=${onDismiss}>Dismiss</button>
  </div>`;
}
