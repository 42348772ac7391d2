import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, can, pipelinePath } from './api.js';
import { ReadOnlyNote } from './access.js';
import { ErrorNote, Loading, Pager, fmt, useLoad } from './ui.js';
import { UserId, Visible, visibleJson } from './visible.js';

const segHref = (id) => `#/segments/${encodeURIComponent(id)}`;
const EXAMPLE = {
  all: [
    { field: 'churn_risk_score', op: '>=', value: 0.5 },
    { field: 'sentiment_trend', op: '==', value: 'declining' },
  ],
};

/** The segments with their state and member count (each count is the total of its members page). */
export function SegmentList({ place }) {
  const base = `${pipelinePath(place)}/segments`;
  const list = useLoad(async () => {
    const { segments } = await api('GET', base);
    // One page of one member per segment, for its total; a count that fails shows a dash, not an empty list.
    const counts = await Promise.all(
      segments.map((s) =>
        api('GET', `${base}/${encodeURIComponent(s.id)}/users`, { query: { limit: 1 } }).then(
          (page) => page.total,
          () => undefined,
        ),
      ),
    );
    return segments.map((s, i) => ({ ...s, members: counts[i] }));
  }, [base]);
  const [creating, setCreating] = useState(false);
  return html`<section aria-labelledby="segments-h">
    <h1 id="segments-h">Segments</h1>
    <${ErrorNote} error=${list.error} />
    ${list.loading && !list.data && html`<${Loading} what="segments" />`}
    ${
      list.data &&
      html`<div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Segment</th>
              <th scope="col">Id</th>
              <th scope="col">State</th>
              <th scope="col">Members</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            ${
              list.data.length === 0 &&
              html`<tr>
                <td colspan="5" class="muted">No segment in this pipeline yet.</td>
              </tr>`
            }
            ${list.data.map(
              (s) =>
                html`<tr>
                  <th scope="row">
                    <a href=${segHref(s.id)}><${Visible} text=${s.name} /></a>
                  </th>
                  <td>
                    <code><${Visible} text=${s.id} /></code>
                  </td>
                  <td><span class=${`state ${s.status}`}>${s.status}</span></td>
                  <td>${s.members === undefined ? '—' : s.members.toLocaleString('en')}</td>
                  <td>${fmt.time(s.updated_at)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>`
    }
    ${
      !can('segments:write')
        ? html`<${ReadOnlyNote} lacks="segments:write" what="creating a segment" />`
        : creating
          ? html`<${SegmentForm}
              place=${place}
              onDone=${(s) => (location.hash = segHref(s.id))}
              onCancel=${() => setCreating(false)}
            />`
          : html`<button type="button" onClick=${() => setCreating(true)}>New segment</button>`
    }
  </section>`;
}

/** Which node of the rule a `field` such as `rule.all[1].op` points to: its path from `rule`. */
export function nodePathOf(field) {
  if (!field || !field.startsWith('rule')) return undefined;
  // `rule.all[1].op` names a key of the node at `rule.all[1]`; `rule.all[1]` is the node itself.
  return field.match(/^rule(?:\.(?:all|any)\[\d+\])*/)[0];
}

/** The rule as a tree; the node an error points to carries the error, announced and outlined. */
function RuleTree({ node, path = 'rule', error, errorPath }) {
  const here = errorPath === path;
  const note = here
    ? html`<p class="error node-error" role="alert" id="rule-error"><${Visible} text=${error.message} /></p>`
    : null;
  const cls = `node${here ? ' invalid' : ''}`;
  if (
    node &&
    typeof node === 'object' &&
    !Array.isArray(node) &&
    (Array.isArray(node.all) || Array.isArray(node.any))
  ) {
    const kind = Array.isArray(node.all) ? 'all' : 'any';
    return html`<li class=${cls} data-path=${path} aria-invalid=${here ? 'true' : undefined}>
      <span class="combinator">${kind === 'all' ? 'All of' : 'Any of'}</span>${note}
      <ul>
        ${node[kind].map((child, i) => html`<${RuleTree} node=${child} path=${`${path}.${kind}[${i}]`} error=${error} errorPath=${errorPath} />`)}
      </ul>
    </li>`;
  }
  let text;
  if (node && typeof node === 'object' && 'semantic' in node)
    text = `means “${node.semantic}” (similarity ≥ ${node.min_similarity ?? 0.5})`;
  else if (node && typeof node === 'object' && 'field' in node)
    text = `${node.field} ${node.op} ${JSON.stringify(node.value)}`;
  else text = JSON.stringify(node);
  return html`<li class=${cls} data-path=${path} aria-invalid=${here ? 'true' : undefined}>
    <code><${Visible} text=${text} /></code>${note}
  </li>`;
}

/** Create (no `segment`) or edit a segment; the API's validation error is shown at its rule node. */
export function SegmentForm({ place, segment, onDone, onCancel }) {
  // Hidden characters of a stored rule as JSON escapes: the text box shows them, the value is the same.
  const [rule, setRule] = useState(visibleJson(segment?.rule ?? EXAMPLE));
  const [error, setError] = useState();
  const [tried, setTried] = useState(segment?.rule ?? EXAMPLE);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    let parsed;
    try {
      parsed = JSON.parse(rule);
    } catch (err) {
      setError({ message: `The rule is not JSON: ${err.message}`, field: 'rule-text' });
      return;
    }
    setTried(parsed);
    const body = { name: form.get('name'), description: form.get('description') || undefined, rule: parsed };
    if (!segment && form.get('id')) body.id = form.get('id');
    setBusy(true);
    try {
      const base = `${pipelinePath(place)}/segments`;
      const saved = segment
        ? await api('PUT', `${base}/${encodeURIComponent(segment.id)}`, { body })
        : await api('POST', base, { body });
      setError(undefined);
      onDone(saved);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const errorPath = error && nodePathOf(error.field);
  const textError = error && error.field === 'rule-text';
  return html`<form class="segment-form" onSubmit=${submit} aria-label=${segment ? 'Edit the segment' : 'New segment'}>
    <h2>${segment ? 'Edit the segment' : 'New segment'}</h2>
    ${
      !segment &&
      html`<label for="seg-id">Id <span class="muted">(optional: made from the name)</span></label>
        <input id="seg-id" name="id" pattern="[a-z0-9][a-z0-9_-]*" />`
    }
    <label for="seg-name">Name</label>
    <input id="seg-name" name="name" required defaultValue=${segment?.name ?? ''} />
    <label for="seg-desc">Description</label>
    <input id="seg-desc" name="description" defaultValue=${segment?.description ?? ''} />
    <label for="seg-rule">Rule (JSON; see the rule language in the API reference)</label>
    <textarea
      id="seg-rule"
      rows="10"
      spellcheck=${false}
      value=${rule}
      onInput=${(e) => setRule(e.currentTarget.value)}
      aria-invalid=${error && (textError || errorPath) ? 'true' : undefined}
      aria-describedby=${error ? 'rule-error' : undefined}
    ></textarea>
    ${textError && html`<p class="error" role="alert" id="rule-error"><${Visible} text=${error.message} /></p>`}
    ${error && !textError && !errorPath && html`<${ErrorNote} error=${error} />`}
    <div class="rule-preview">
      <h3>The rule as a tree</h3>
      <ul class="rule-tree">
        <${RuleTree} node=${tried} error=${error} errorPath=${errorPath} />
      </ul>
    </div>
    <div class="actions">
      <button type="submit" disabled=${busy}>${segment ? 'Save' : 'Create the segment'}</button>
      ${onCancel && html`<button type="button" class="secondary" onClick=${onCancel}>Cancel</button>`}
    </div>
  </form>`;
}

export function SegmentPage({ place, segmentId }) {
  const base = `${pipelinePath(place)}/segments/${encodeURIComponent(segmentId)}`;
  const seg = useLoad(() => api('GET', base), [base]);
  const [offset, setOffset] = useState(0);
  // The page carries the offset it was asked with: the pager describes the rows on screen, not the
  // page still loading.
  const members = useLoad(
    () => api('GET', `${base}/users`, { query: { limit: 25, offset } }).then((page) => ({ ...page, offset })),
    [base, offset],
  );
  const [editing, setEditing] = useState(false);
  const [actionError, setActionError] = useState();
  const [busy, setBusy] = useState(false);
  const act = async (what) => {
    setBusy(true);
    try {
      await api('POST', `${base}/${what}`);
      setActionError(undefined);
      seg.reload();
      members.reload();
    } catch (err) {
      setActionError(err);
    } finally {
      setBusy(false);
    }
  };
  if (seg.error)
    return html`<p><a href="#/segments">← Segments</a></p>
      <${ErrorNote} error=${seg.error} />`;
  if (!seg.data) return html`<${Loading} what="the segment" />`;
  const s = seg.data;
  const writable = can('segments:write');
  return html`<article aria-labelledby="seg-h">
    <p><a href="#/segments">← Segments</a></p>
    <h1 id="seg-h"><${Visible} text=${s.name} /> <span class=${`state ${s.status}`}>${s.status}</span></h1>
    ${s.description && html`<p><${Visible} text=${s.description} /></p>`}
    <div class="actions">
      ${
        writable &&
        (s.status === 'deployed'
          ? html`<button type="button" disabled=${busy} onClick=${() => act('undeploy')}>Undeploy</button>`
          : html`<button type="button" disabled=${busy} onClick=${() => act('deploy')}>Deploy</button>`)
      }
      ${
        writable &&
        html`<button type="button" class="secondary" onClick=${() => setEditing(!editing)}>
          ${editing ? 'Close the editor' : 'Edit the rule'}
        </button>`
      }
      <button type="button" class="secondary" onClick=${() => members.reload()}>Refresh members</button>
    </div>
    ${!writable && html`<${ReadOnlyNote} lacks="segments:write" what="changing, deploying or undeploying a segment" />`}
    <${ErrorNote} error=${actionError} />
    ${
      editing && writable
        ? html`<${SegmentForm}
            place=${place}
            segment=${s}
            onDone=${() => (setEditing(false), seg.reload())}
            onCancel=${() => setEditing(false)}
          />`
        : html`<ul class="rule-tree" aria-label="Rule">
            <${RuleTree} node=${s.rule} />
          </ul>`
    }
    <section aria-labelledby="members-h">
      <h2 id="members-h">Members</h2>
      <${ErrorNote} error=${members.error} />
      ${
        members.data &&
        html`<div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">User</th>
                  <th scope="col">Score</th>
                  <th scope="col">Member since</th>
                </tr>
              </thead>
              <tbody>
                ${
                  members.data.users.length === 0 &&
                  html`<tr>
                    <td colspan="3" class="muted">
                      No member${s.status === 'draft' ? ': deploy the segment to evaluate it' : ''}.
                    </td>
                  </tr>`
                }
                ${members.data.users.map(
                  (u) =>
                    html`<tr>
                      <th scope="row">
                        <a href=${`#/profiles/${encodeURIComponent(u.user_id)}`}><${UserId} id=${u.user_id} /></a>
                      </th>
                      <td>${fmt.score(u.score)}</td>
                      <td>${fmt.time(u.since)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>
          <${Pager}
            offset=${members.data.offset}
            limit=${25}
            total=${members.data.total}
            onChange=${setOffset}
            label="Member pages"
          />`
      }
    </section>
  </article>`;
}
