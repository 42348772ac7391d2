import { html } from 'htm/preact';
import { useMemo, useState } from 'preact/hooks';
import { api, can } from './api.js';
import { SentimentChart } from './chart.js';
import { Chips, ErrorNote, Loading, Pager, fmt, tone, useLoad } from './ui.js';
import { UserId, Visible } from './visible.js';
import { ErasedNote, ProfileDataRights } from './privacy.js';
// The server's own constants (a pure module without imports), bundled in, so the explanation can
// never drift from the score it explains.
import {
  CHURN_FACTOR_WEIGHTS,
  CHURN_INTENT_WEIGHTS,
  SENTIMENT_TRENDS,
  WINDOW_SIZE,
} from '../src/profiles/aggregates.ts';

const PAGE = 25;
const userHref = (id) => `#/profiles/${encodeURIComponent(id)}`;

/** Churn risk in three words: the levels the rule examples in docs/aggregates-and-rules.md use. */
const churnLevel = (x) => (x >= 0.6 ? 'high' : x >= 0.3 ? 'medium' : 'low');

/**
 * The profile list with the API's four filters, offset paging and the exact total; after an
 * erasure (`erased`), what it removed above it.
 */
export function ProfileList({ place, erased, onDismiss }) {
  const [filters, setFilters] = useState({});
  const [offset, setOffset] = useState(0);
  // The API's orders: the latest change first (its default), or the highest churn risk first.
  const [sort, setSort] = useState('updated_at');
  // Each page carries the offset it was asked with, for the pager to describe the rows on screen.
  const list = useLoad(
    () =>
      api('GET', '/api/v1/profiles', {
        query: { project_id: place.project, limit: PAGE, offset, sort, ...filters },
      }).then((page) => ({ ...page, offset })),
    [place.project, offset, sort, JSON.stringify(filters)],
  );
  const apply = (e) => {
    e.preventDefault();
    const f = Object.fromEntries([...new FormData(e.currentTarget)].filter(([, v]) => v !== ''));
    setFilters(f);
    setOffset(0);
  };
  const users = list.data?.users ?? [];
  const byChurn = sort === 'churn_risk';
  const toggle = () => {
    setSort(byChurn ? 'updated_at' : 'churn_risk');
    setOffset(0);
  };
  return html`<section aria-labelledby="profiles-h">
    <h1 id="profiles-h">Profiles</h1>
    <${ErasedNote} erased=${erased} onDismiss=${onDismiss} />
    <form class="filters" onSubmit=${apply} aria-label="Filters">
      <div>
        <label for="f-gte">Churn risk at least</label>
        <input id="f-gte" name="churn_risk_gte" type="number" min="0" max="1" step="0.05" />
      </div>
      <div>
        <label for="f-lte">Churn risk at most</label>
        <input id="f-lte" name="churn_risk_lte" type="number" min="0" max="1" step="0.05" />
      </div>
      <div>
        <label for="f-trend">Sentiment trend</label>
        <select id="f-trend" name="sentiment_trend">
          <option value="">any</option>
          ${SENTIMENT_TRENDS.map((t) => html`<option value=${t}>${t}</option>`)}
        </select>
      </div>
      <div>
        <label for="f-min">At least messages</label>
        <input id="f-min" name="min_messages" type="number" min="1" step="1" />
      </div>
      <button type="submit">Apply filters</button>
    </form>
    <${ErrorNote} error=${list.error} />
    ${list.loading && !list.data && html`<${Loading} what="profiles" />`}
    ${
      list.data &&
      html`<p class="total" role="status">
          ${`${list.data.total.toLocaleString('en')} ${list.data.total === 1 ? 'profile matches' : 'profiles match'}.`}
        </p>
        <div class="scroll">
          <table>
            <caption class="sr-only">
              Profiles, ${byChurn ? 'highest churn risk first' : 'latest change first'}
            </caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Messages</th>
                <th scope="col">Avg sentiment</th>
                <th scope="col">Trend</th>
                <th scope="col" aria-sort=${byChurn ? 'descending' : 'none'}>
                  <button type="button" class="sort" aria-pressed=${byChurn} onClick=${toggle}>
                    Churn risk <span aria-hidden="true">${byChurn ? '↓' : '↕'}</span>
                    <span class="sr-only"
                      >${byChurn ? '(sorted, highest first; press for the latest change first)' : '(press to sort, highest first)'}</span
                    >
                  </button>
                </th>
                <th scope="col" aria-sort=${byChurn ? 'none' : 'descending'}>Updated</th>
              </tr>
            </thead>
            <tbody>
              ${users.map((u) => {
                const a = u.aggregates;
                const t = tone(a.avg_sentiment);
                return html`<tr>
                  <th scope="row">
                    <a href=${userHref(u.user_id)}><${UserId} id=${u.user_id} /></a>
                  </th>
                  <td>${a.message_count}</td>
                  <td class=${t.cls}>${fmt.sentiment(a.avg_sentiment)}</td>
                  <td>${a.sentiment_trend}</td>
                  <td>
                    <span class=${`risk ${churnLevel(a.churn_risk_score)}`}>${fmt.score(a.churn_risk_score)}</span>
                    <span class="muted"> ${churnLevel(a.churn_risk_score)}</span>
                  </td>
                  <td>${fmt.time(u.updated_at)}</td>
                </tr>`;
              })}
            </tbody>
          </table>
        </div>
        <${Pager}
          offset=${list.data.offset}
          limit=${PAGE}
          total=${list.data.total}
          onChange=${setOffset}
          label="Profile pages"
        />`
    }
  </section>`;
}

/** The intentions the churn factor counts, in words; one the words do not know shows as its name. */
const INTENTION_WORDS = { churn: 'cancel', refund: 'get a refund', downgrade: 'downgrade' };
const CHURN_INTENTIONS = Object.keys(CHURN_INTENT_WEIGHTS).map((i) => [i, INTENTION_WORDS[i] ?? fmt.label(i)]);

/** "a, b or c". */
const orList = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}`);

/** The churn score factor by factor, in words, with the server's weights. */
function churnExplanation(a) {
  const f = a.churn_risk_factors;
  const parts = [
    {
      key: 'negative_sentiment',
      weight: CHURN_FACTOR_WEIGHTS.negative_sentiment,
      text: `Negative sentiment: ${fmt.pct(a.negative_ratio)} of the last ${a.window_size} messages are negative and their average is ${fmt.sentiment(a.avg_sentiment)}.`,
    },
    {
      key: 'declining_trend',
      weight: CHURN_FACTOR_WEIGHTS.declining_trend,
      text:
        f.declining_trend > 0
          ? `Declining trend: the newer half of the window is ${f.declining_trend.toFixed(2)} lower than the older half.`
          : `No declining trend (the trend is ${a.sentiment_trend}).`,
    },
    {
      key: 'churn_intent',
      weight: CHURN_FACTOR_WEIGHTS.churn_intent,
      text:
        f.churn_intent > 0
          ? `Churn intent: the window's messages ask to ${CHURN_INTENTIONS.filter(([i]) =>
              a.intentions_summary.includes(i),
            )
              .map(([, words]) => words)
              .join(', ')} (factor ${f.churn_intent.toFixed(2)}).${
              f.churn_words?.length ? ` What was read as churn: ${f.churn_words.map((w) => `“${w}”`).join(', ')}.` : ''
            }`
          : `No message says they want to ${orList(CHURN_INTENTIONS.map(([, words]) => words))}.`,
    },
  ];
  return parts
    .map((p) => ({ ...p, contribution: p.weight * f[p.key] }))
    .sort((x, y) => y.contribution - x.contribution);
}

export function ProfilePage({ place, userId, onErased }) {
  const profile = useLoad(
    () => api('GET', `/api/v1/profiles/${encodeURIComponent(userId)}`, { query: { project_id: place.project } }),
    [place.project, userId],
  );
  const timeline = useLoad(
    () =>
      api('GET', `/api/v1/profiles/${encodeURIComponent(userId)}/timeline`, {
        query: { project_id: place.project, limit: 1000 },
      }),
    [place.project, userId],
  );
  // Computed once per timeline: the chart is rebuilt only when its points change.
  const chronological = useMemo(
    () => [...(timeline.data?.timeline ?? [])].sort((x, y) => Date.parse(x.timestamp) - Date.parse(y.timestamp)),
    [timeline.data],
  );
  const points = useMemo(
    () => chronological.map((m) => ({ t: Date.parse(m.timestamp) / 1000, sentiment: m.sentiment })),
    [chronological],
  );
  if (profile.error)
    return html`<p><a href="#/profiles">← Profiles</a></p>
      <${ErrorNote} error=${profile.error} />`;
  if (!profile.data) return html`<${Loading} what="the profile" />`;
  const p = profile.data;
  const a = p.aggregates;
  const newestFirst = [...chronological].reverse();
  const level = churnLevel(a.churn_risk_score);
  const first = chronological[0];
  const last = chronological[chronological.length - 1];
  const summary = first
    ? `Sentiment of ${chronological.length} messages from ${fmt.sentiment(first.sentiment)} (first) to ${fmt.sentiment(last.sentiment)} (latest); window average ${fmt.sentiment(a.avg_sentiment)}; trend ${a.sentiment_trend}.`
    : 'No messages.';
  const topics = Object.entries(a.topic_scores).sort((x, y) => y[1] - x[1]);
  const attributes = Object.entries(p.attributes ?? {});
  return html`<article aria-labelledby="profile-h">
    <p><a href="#/profiles">← Profiles</a></p>
    <h1 id="profile-h"><${UserId} id=${p.user_id} /></h1>
    <dl class="facts">
      <div>
        <dt>Messages</dt>
        <dd>${a.message_count} (window ${a.window_size})</dd>
      </div>
      <div>
        <dt>Average sentiment</dt>
        <dd class=${tone(a.avg_sentiment).cls}>${fmt.sentiment(a.avg_sentiment)} (${tone(a.avg_sentiment).word})</dd>
      </div>
      <div>
        <dt>Trend</dt>
        <dd>${a.sentiment_trend}</dd>
      </div>
      <div>
        <dt>Churn risk</dt>
        <dd><span class=${`risk ${level}`}>${fmt.score(a.churn_risk_score)}</span> ${level}</dd>
      </div>
      <div>
        <dt>Price sensitive</dt>
        <dd>${fmt.pct(a.price_sensitive_ratio)} of messages</dd>
      </div>
      <div>
        <dt>Writes every</dt>
        <dd>${a.message_frequency_days == null ? '—' : `${a.message_frequency_days.toFixed(1)} days`}</dd>
      </div>
      <div>
        <dt>Source</dt>
        <dd><${Visible} text=${p.source_label ?? '—'} /></dd>
      </div>
      <div>
        <dt>Updated</dt>
        <dd>${fmt.time(p.updated_at)}</dd>
      </div>
    </dl>

    <section aria-labelledby="sent-h">
      <h2 id="sent-h">Sentiment over time</h2>
      ${timeline.loading && !timeline.data && html`<${Loading} what="the timeline" />`}
      <${ErrorNote} error=${timeline.error} />
      ${points.length > 0 && html`<${SentimentChart} points=${points} windowSize=${WINDOW_SIZE} summary=${summary} />`}
    </section>

    <div class="columns">
      <section aria-labelledby="churn-h">
        <h2 id="churn-h">Why the churn risk is ${fmt.score(a.churn_risk_score)} (${level})</h2>
        <ul class="factors">
          ${churnExplanation(a).map(
            (x) =>
              html`<li>
                <span class="bar" aria-hidden="true"
                  ><span style=${{ width: `${Math.round(x.contribution * 250)}%` }}></span
                ></span>
                <span
                  >${x.text} <span class="muted">Adds ${x.contribution.toFixed(2)} (weight ${x.weight}).</span></span
                >
              </li>`,
          )}
        </ul>
      </section>
      <section aria-labelledby="topics-h">
        <h2 id="topics-h">Topics</h2>
        ${topics.length === 0 && html`<p class="muted">No topic yet.</p>`}
        <ul class="bars">
          ${topics.map(
            ([t, s]) =>
              html`<li>
                <span class="name">${fmt.label(t)}</span>
                <span class="bar" aria-hidden="true"><span style=${{ width: `${Math.round(s * 100)}%` }}></span></span>
                <span class="value">${fmt.pct(s)}</span>
              </li>`,
          )}
        </ul>
        <h2>Intentions</h2>
        <${Chips} items=${a.intentions_summary} kind="intentions" />
      </section>
    </div>

    <div class="columns">
      <section aria-labelledby="seg-h">
        <h2 id="seg-h">Segments</h2>
        ${
          p.segments === undefined
            ? html`<p class="muted">This service version does not list memberships.</p>`
            : p.segments.length === 0
              ? html`<p class="muted">Not in any segment.</p>`
              : html`<table>
                  <thead>
                    <tr>
                      <th scope="col">Segment</th>
                      <th scope="col">Score</th>
                      <th scope="col">Since</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${p.segments.map(
                      (s) =>
                        html`<tr>
                          <th scope="row">
                            ${
                              s.pipeline_id === place.pipeline
                                ? html`<a href=${`#/segments/${encodeURIComponent(s.segment_id)}`}
                                    ><${Visible} text=${s.name}
                                  /></a>`
                                : html`<${Visible} text=${s.name} />`
                            }
                          </th>
                          <td>${fmt.score(s.score)}</td>
                          <td>${fmt.time(s.since)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
        }
      </section>
      <section aria-labelledby="attr-h">
        <h2 id="attr-h">Attributes</h2>
        ${
          attributes.length === 0
            ? html`<p class="muted">None.</p>`
            : html`<dl class="attrs">
                ${attributes.map(
                  ([k, v]) =>
                    html`<div>
                      <dt><${Visible} text=${k} /></dt>
                      <dd><${Visible} text=${JSON.stringify(v)} /></dd>
                    </div>`,
                )}
              </dl>`
        }
      </section>
    </div>

    <section aria-labelledby="tl-h">
      <h2 id="tl-h">Timeline <span class="muted">(newest first)</span></h2>
      <ol class="timeline">
        ${newestFirst.map((m) => {
          const t = tone(m.sentiment);
          return html`<li>
            <time datetime=${m.timestamp}>${fmt.time(m.timestamp)}</time>
            <span class=${`sentiment ${t.cls}`}>${fmt.sentiment(m.sentiment)} ${t.word}</span>
            ${
              m.text == null
                ? html`<p class="said muted small">
                    Text removed by the project's retention or an erasure; the analysis stays.
                  </p>`
                : html`<blockquote class="said"><${Visible} text=${m.text} /></blockquote>`
            }
            <div class="labels"><span class="muted">Topics</span> <${Chips} items=${m.topics} kind="topics" /></div>
            <div class="labels">
              <span class="muted">Intentions</span> <${Chips} items=${m.intentions} kind="intentions" />
            </div>
            ${m.source_label && html`<div class="muted small">from <${Visible} text=${m.source_label} /></div>`}
          </li>`;
        })}
      </ol>
    </section>

    ${can('privacy') && html`<${ProfileDataRights} place=${place} userId=${p.user_id} onErased=${onErased} />`}
  </article>`;
}
