import { render } from 'preact';
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { api, session, ApiError } from './api.js';
import { ErrorNote, Loading, useLoad } from './ui.js';
import { ProfileList, ProfilePage } from './profiles.js';
import { SegmentList, SegmentPage } from './segments.js';
import { WebhookList, WebhookPage } from './webhooks.js';

/** The page from the URL's hash: `#/profiles`, `#/profiles/<user id>`, `#/segments/<id>`, … */
function useRoute() {
  const read = () => (location.hash.replace(/^#\/?/, '') || 'profiles').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

function KeyForm({ onKey }) {
  const [error, setError] = useState();
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const key = new FormData(e.currentTarget).get('key').trim();
    setBusy(true);
    try {
      await api('GET', '/api/v1/projects', { key });
      session.setKey(key);
      onKey(key);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? new Error('This key is not valid.') : err);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="signin">
    <h1>Semantic profiling console</h1>
    <p>
      Paste an API key of your tenant. It is kept in this tab only (sessionStorage) and sent as
      <code>X-API-Key</code> to the same JSON API your systems use.
    </p>
    <form onSubmit=${submit}>
      <label for="key">API key</label>
      <input id="key" name="key" type="password" autocomplete="off" required spellcheck=${false} />
      <button type="submit" disabled=${busy}>Open the console</button>
    </form>
    <${ErrorNote} error=${error} />
  </main>`;
}

/** The project and pipeline every page works in, remembered for the tab. */
function PlacePicker({ place, setPlace }) {
  const projects = useLoad(() => api('GET', '/api/v1/projects'), []);
  const pipelines = useLoad(
    () => (place.project ? api('GET', `/projects/${place.project}/pipelines`) : Promise.resolve({ pipelines: [] })),
    [place.project],
  );
  const list = projects.data?.projects ?? [];
  const pls = pipelines.data?.pipelines ?? [];
  useEffect(() => {
    if (!place.project && list.length) setPlace({ project: list[0].id });
  }, [list.length]);
  useEffect(() => {
    if (place.project && !place.pipeline && pls.length) setPlace({ ...place, pipeline: pls[0].id });
  }, [pls.length, place.project]);
  return html`<div class="place">
    <label for="project">Project</label>
    <select
      id="project"
      value=${place.project ?? ''}
      onChange=${(e) => setPlace({ project: Number(e.currentTarget.value) })}
    >
      ${list.length === 0 && html`<option value="">no project</option>`}
      ${list.map((p) => html`<option value=${p.id}>${p.name}</option>`)}
    </select>
    <label for="pipeline">Pipeline</label>
    <select
      id="pipeline"
      value=${place.pipeline ?? ''}
      onChange=${(e) => setPlace({ ...place, pipeline: Number(e.currentTarget.value) })}
    >
      ${pls.length === 0 && html`<option value="">no pipeline</option>`}
      ${pls.map((p) => html`<option value=${p.id}>${p.name}</option>`)}
    </select>
    <${ErrorNote} error=${projects.error || pipelines.error} />
  </div>`;
}

const SECTIONS = [
  ['profiles', 'Profiles'],
  ['segments', 'Segments'],
  ['webhooks', 'Webhooks'],
];

function Page({ route, place }) {
  const [section, id, sub] = route;
  if (!place.project) return html`<${Loading} what="projects" />`;
  if (section === 'profiles')
    return id ? html`<${ProfilePage} place=${place} userId=${id} />` : html`<${ProfileList} place=${place} />`;
  if (!place.pipeline) return html`<p>This project has no pipeline yet: segments and webhooks live in a pipeline.</p>`;
  if (section === 'segments')
    return id ? html`<${SegmentPage} place=${place} segmentId=${id} />` : html`<${SegmentList} place=${place} />`;
  if (section === 'webhooks')
    return id
      ? html`<${WebhookPage} place=${place} webhookId=${Number(id)} eventId=${sub} />`
      : html`<${WebhookList} place=${place} />`;
  return html`<p>No such page. <a href="#/profiles">Profiles</a></p>`;
}

function App() {
  const [key, setKey] = useState(session.key());
  const [place, setPlaceState] = useState(session.place());
  const route = useRoute();
  const setPlace = (p) => {
    session.setPlace(p);
    setPlaceState(p);
  };
  if (!key) return html`<${KeyForm} onKey=${setKey} />`;
  const forget = () => {
    session.clear();
    setKey(null);
    setPlaceState({});
  };
  return html`<div class="shell">
    <a class="skip" href="#main">Skip to content</a>
    <header>
      <span class="brand">Profiling console</span>
      <nav aria-label="Sections">
        ${SECTIONS.map(
          ([s, label]) => html`<a href=${`#/${s}`} aria-current=${route[0] === s ? 'page' : undefined}>${label}</a>`,
        )}
      </nav>
      <${PlacePicker} place=${place} setPlace=${setPlace} />
      <button type="button" class="link" onClick=${forget}>Forget the key</button>
    </header>
    <main id="main" tabindex="-1"><${Page} route=${route} place=${place} /></main>
  </div>`;
}

const root = document.getElementById('app');
root.textContent = ''; // the "Loading" placeholder of index.html: render adds, it does not replace
render(html`<${App} />`, root);
