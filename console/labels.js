import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, can } from './api.js';
import { ReadOnlyNote } from './access.js';
import { ErrorNote, Loading, fmt, useLoad } from './ui.js';
import { Visible } from './visible.js';

/**
 * A project's custom labels (docs/labels.md): taught from examples, measured, tried, corrected.
 * Every change is a new version trained in the background; the pages poll while one trains or
 * backfills.
 */
const base = (place) => `/api/v1/projects/${place.project}/labels`;
const lines = (text) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
const busy = (l) => l.state === 'training' || (l.backfill && l.backfill.state !== 'done');

/** Reloads every 2 s while `active`. */
function usePoll(active, reload) {
  useEffect(() => {
    if (!active) return undefined;
    const t = setInterval(reload, 2_000);
    return () => clearInterval(t);
  }, [active]);
}

function State({ label }) {
  const word =
    label.state === 'ready'
      ? `ready (version ${label.ready_version})`
      : label.state === 'failed'
        ? 'failed'
        : label.ready_version
          ? `training version ${label.version} (version ${label.ready_version} scores meanwhile)`
          : 'training';
  return html`<span class=${`state ${label.state}`}>${word}</span>`;
}

function Quality({ quality }) {
  if (!quality) return html`<span class="muted">not measured yet</span>`;
  return html`<span>
    F1 ${fmt.score(quality.f1)} (precision ${fmt.score(quality.precision)}, recall ${fmt.score(quality.recall)},
    ${quality.folds} folds over ${quality.examples} examples)
    ${quality.warning && html`<br /><span class="muted"><${Visible} text=${quality.warning} /></span>`}
  </span>`;
}

export function LabelList({ place }) {
  const list = useLoad(() => api('GET', base(place)), [place.project]);
  const labels = list.data?.labels ?? [];
  usePoll(labels.some(busy), list.reload);
  const [error, setError] = useState();
  const [sending, setSending] = useState(false);
  const create = async (e) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const examples = [
      ...lines(String(form.get('matching'))).map((text) => ({ text, match: true })),
      ...lines(String(form.get('other'))).map((text) => ({ text, match: false })),
    ];
    setSending(true);
    setError(undefined);
    try {
      const label = await api('POST', base(place), {
        body: { name: String(form.get('name')).trim(), description: String(form.get('description')), examples },
      });
      location.hash = `#/labels/${encodeURIComponent(label.name)}`;
    } catch (err) {
      setError(err);
    } finally {
      setSending(false);
    }
  };
  return html`<section>
    <h1>Labels</h1>
    <p class="muted">
      The project's own categories, taught from examples: each ready label is matched on every new message, and
      segment rules can use <code>labels</code> and <code>label_ratio.<name></code>.
    </p>
    ${list.loading && !list.data && html`<${Loading} what="labels" />`}
    <${ErrorNote} error=${list.error} />
    ${
      list.data &&
      (labels.length === 0
        ? html`<p>No labels yet.</p>`
        : html`<table>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">State</th>
                <th scope="col">Examples</th>
                <th scope="col">F1</th>
              </tr>
            </thead>
            <tbody>
              ${labels.map(
                (l) =>
                  html`<tr>
                    <td><a href=${`#/labels/${encodeURIComponent(l.name)}`}>${l.name}</a></td>
                    <td><${State} label=${l} /></td>
                    <td>${l.matching_examples} matching, ${l.examples_count - l.matching_examples} not</td>
                    <td>${l.quality ? fmt.score(l.quality.f1) : '—'}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`)
    }
    ${
      can('labels:write')
        ? html`<h2>Teach a new label</h2>
            <form class="stack" onSubmit=${create}>
              <label for="label-name">Name (a-z, 0-9, _ and -)</label>
              <input id="label-name" name="name" required pattern="[a-z0-9_\\-]{1,64}" />
              <label for="label-description">Description</label>
              <input id="label-description" name="description" />
              <label for="label-matching">Matching examples, one per line (at least 5)</label>
              <textarea id="label-matching" name="matching" rows="6" required></textarea>
              <label for="label-other">Non-matching examples, one per line (at least 5; include near misses)</label>
              <textarea id="label-other" name="other" rows="6" required></textarea>
              <button type="submit" disabled=${sending}>Teach it</button>
            </form>
            <${ErrorNote} error=${error} />`
        : html`<${ReadOnlyNote} lacks="labels:write" what="teaching a label" />`
    }
  </section>`;
}

export function LabelPage({ place, name }) {
  const path = `${base(place)}/${encodeURIComponent(name)}`;
  const label = useLoad(() => api('GET', path), [path]);
  const l = label.data;
  usePoll(Boolean(l && busy(l)), label.reload);
  const [error, setError] = useState();
  const [tried, setTried] = useState();
  const act = async (fn) => {
    setError(undefined);
    try {
      await fn();
      label.reload();
    } catch (err) {
      setError(err);
    }
  };
  const add = (e) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const target = e.currentTarget;
    return act(async () => {
      await api('POST', `${path}/examples`, {
        body: { examples: [{ text: String(form.get('text')), match: form.get('match') === 'true' }] },
      });
      target.reset();
    });
  };
  const remove = (i) => act(() => api('PUT', path, { body: { examples: l.examples.filter((_, k) => k !== i) } }));
  const tryIt = async (e) => {
    e.preventDefault();
    const texts = lines(String(new FormData(e.currentTarget).get('texts')));
    setError(undefined);
    try {
      const r = await api('POST', `${path}/classify`, { body: { texts } });
      setTried(r.results.map((x, i) => ({ ...x, text: texts[i] })));
    } catch (err) {
      setError(err);
    }
  };
  const del = () =>
    act(async () => {
      if (!confirm(`Delete the label ${name}?`)) return;
      await api('DELETE', path);
      location.hash = '#/labels';
    });
  if (label.loading && !l) return html`<${Loading} what="the label" />`;
  if (!l) return html`<${ErrorNote} error=${label.error} />`;
  const writable = can('labels:write');
  return html`<section>
    <p><a href="#/labels">All labels</a></p>
    <h1>${l.name}</h1>
    ${l.description && html`<p><${Visible} text=${l.description} /></p>`}
    <dl>
      <dt>State</dt>
      <dd><${State} label=${l} />${l.failure_reason && html` — <${Visible} text=${l.failure_reason} />`}</dd>
      <dt>Quality</dt>
      <dd><${Quality} quality=${l.quality} /></dd>
      <dt>Stored messages</dt>
      <dd>
        ${
          l.backfill
            ? html`version ${l.backfill.version}: ${l.backfill.users_done} of ${l.backfill.users_total} users scored
              (${l.backfill.state})`
            : html`<span class="muted">not scored yet</span>`
        }
      </dd>
    </dl>
    <${ErrorNote} error=${error} />
    <h2>Try it</h2>
    <form class="stack" onSubmit=${tryIt}>
      <label for="try-texts">Texts to score, one per line (up to 100; nothing is stored)</label>
      <textarea id="try-texts" name="texts" rows="4" required></textarea>
      <button type="submit" disabled=${!l.ready_version}>Score</button>
    </form>
    ${
      tried &&
      html`<table aria-label="Scores">
        <thead>
          <tr>
            <th scope="col">Text</th>
            <th scope="col">Score</th>
            <th scope="col">Match</th>
          </tr>
        </thead>
        <tbody>
          ${tried.map(
            (r) =>
              html`<tr>
                <td><${Visible} text=${r.text} /></td>
                <td>${fmt.score(r.score)}</td>
                <td>${r.match ? 'yes' : 'no'}</td>
              </tr>`,
          )}
        </tbody>
      </table>`
    }
    <h2>Examples (version ${l.version})</h2>
    ${
      writable
        ? html`<form class="inline" onSubmit=${add}>
            <label for="example-text">Add an example</label>
            <input id="example-text" name="text" required />
            <select name="match" aria-label="Matches the label">
              <option value="true">matches</option>
              <option value="false">does not match</option>
            </select>
            <button type="submit">Add</button>
          </form>`
        : html`<${ReadOnlyNote} lacks="labels:write" what="adding or removing examples, or deleting the label," />`
    }
    <table aria-label="Examples">
      <thead>
        <tr>
          <th scope="col">Text</th>
          <th scope="col">Matches</th>
          ${writable && html`<th scope="col"></th>`}
        </tr>
      </thead>
      <tbody>
        ${l.examples.map(
          (e, i) =>
            html`<tr>
              <td><${Visible} text=${e.text} /></td>
              <td>${e.match ? 'yes' : 'no'}</td>
              ${writable && html`<td><button type="button" class="link" onClick=${() => remove(i)}>Remove</button></td>`}
            </tr>`,
        )}
      </tbody>
    </table>
    ${writable && html`<p><button type="button" class="danger" onClick=${del}>Delete this label</button></p>`}
  </section>`;
}
