// The unitas console: renders the control-plane state from the watch stream (server-sent events) and talks to
// the same /api/v1 as `unitas ctl`. The token comes from the URL fragment (#token=..., never sent in requests'
// URLs or logs) or the form, and is kept in this browser's localStorage.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const PHASES = ['fencing', 'catching_up', 'flipped', 'completed'];
  let token = '';
  let stream = null;
  let state = null;
  let lastPlan = null;

  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get('token')) {
    localStorage.setItem('unitas.token', fragment.get('token'));
    history.replaceState(null, '', location.pathname);
  }
  token = localStorage.getItem('unitas.token') || '';
  $('token').value = token;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => {
      // style through the CSSOM: the Content-Security-Policy (style-src 'self') refuses style attributes
      if (k === 'class') node.className = v; else if (k === 'text') node.textContent = v;
      else if (k === 'style') node.style.cssText = v; else node.setAttribute(k, v);
    });
    children.flat().forEach((c) => node.append(c instanceof Node ? c : document.createTextNode(String(c))));
    return node;
  }

  function showError(message) {
    $('error').textContent = message;
    $('error').hidden = !message;
  }

  async function api(method, path, body) {
    const res = await fetch(path, {
      method,
      headers: Object.assign({ Authorization: 'Bearer ' + token },
                             body ? { 'Content-Type': 'application/json' } : {}),
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await res.json().catch(() => ({}));
    return { status: res.status, json };
  }

  function connect() {
    if (stream) stream.close();
    showError('');
    if (!token) {
      showError('Enter a bearer token (viewer or above) to connect.');
      return;
    }
    // EventSource cannot send headers; the API accepts the token as access_token (RFC 6750, 2.3) for this.
    stream = new EventSource('/api/v1/watch?access_token=' + encodeURIComponent(token));
    stream.addEventListener('open', () => setConnected(true));
    stream.addEventListener('error', () => {
      setConnected(false);
      api('GET', '/api/v1/whoami').then((r) => {
        if (r.status === 401 || r.status === 403) {
          stream.close();
          showError(r.json.detail || 'not allowed');
        }
      }).catch(() => {});
    });
    stream.addEventListener('state', (e) => {
      state = JSON.parse(e.data);
      render();
    });
  }

  function setConnected(on) {
    $('connection').textContent = on ? 'live' : 'offline';
    $('connection').className = 'pill ' + (on ? 'on' : 'off');
  }

  function regionStatus(h) {
    if (!h) return 'unreported';
    if (!h.healthy) return 'unhealthy';
    return h.freshness === 'fresh' ? 'healthy' : 'stale';
  }

  function render() {
    $('revision').textContent = state.revision;
    $('updated').textContent = state.updated_at ? 'updated ' + new Date(state.updated_at).toLocaleTimeString() : '';
    renderRegions();
    renderUnits();
    renderLinks();
    renderDrift();
    renderSwitchover();
    refreshBudgets();
    refreshAudit();
  }

  function renderRegions() {
    const box = $('regions');
    box.replaceChildren();
    const regions = (state.topology && state.topology.regions) || [];
    if (!regions.length) {
      box.append(el('p', { class: 'muted', text: 'No topology yet.' }));
    }
    for (const r of regions) {
      const h = state.health[r.id];
      const status = regionStatus(h);
      const lag = !h || h.replication_lag_ms < 0 ? 'unknown' : h.replication_lag_ms + ' ms';
      const card = el('article', { class: 'region ' + status, id: 'region-' + r.id, 'data-state': status },
        el('h3', {}, r.id + (state.topology.center === r.id ? ' ★' : ''), el('span', { class: 'status', text: status })),
        el('dl', {},
          el('dt', { text: 'writable' }), el('dd', { class: 'writable', text: h ? (h.writable ? 'yes' : 'no') : '–' }),
          el('dt', { text: 'lag' }), el('dd', { class: 'lag', text: lag }),
          el('dt', { text: 'score' }), el('dd', { class: 'score-value', text: h ? h.score.toFixed(2) : '–' }),
          el('dt', { text: 'capacity' }), el('dd', { text: r.capacity !== undefined ? r.capacity : 'unlimited' }),
          el('dt', { text: 'report' }), el('dd', { text: h ? h.freshness + ', #' + h.sequence : 'none' })),
        el('div', { class: 'score' }, el('div', { style: 'width:' + (h ? h.score * 100 : 0) + '%' })));
      if (h && h.reasons.length) {
        card.append(el('ul', { class: 'reasons' }, h.reasons.map((x) => el('li', { text: x }))));
      }
      box.append(card);
    }
    const ids = regions.map((r) => r.id).join(',');
    for (const [id, none] of [['sw-target', 'auto'], ['sw-drain', '–']]) {
      const sel = $(id);
      if (sel.dataset.regions === ids) continue; // keep the person's choice while they plan
      sel.replaceChildren(el('option', { value: '', text: none }), ...regions.map((r) => el('option', { value: r.id, text: r.id })));
      sel.dataset.regions = ids;
    }
  }

  function renderUnits() {
    const body = $('units').tBodies[0];
    body.replaceChildren();
    const rules = state.rules;
    if (!rules) {
      body.append(el('tr', {}, el('td', { colspan: 6, class: 'muted', text: 'No rules yet.' })));
      return;
    }
    for (const u of rules.units) {
      const ranges = rules.ranges.filter((r) => r.unit === u.id).map((r) => r.range).join(', ');
      const fence = state.fences[u.id];
      const gray = (rules.gray && rules.gray[u.id]) || [];
      body.append(el('tr', { id: 'unit-' + u.id, 'data-fenced': fence ? 'true' : 'false' },
        el('td', { class: 'num', text: ranges || '–' }),
        el('td', {}, el('b', { text: u.id })),
        el('td', {}, el('span', { class: 'tag home', text: u.region })),
        el('td', { class: 'num', text: u.load !== undefined ? u.load : '–' }),
        el('td', {}, fence ? el('span', { class: 'tag fenced', title: fence.reason, text: 'fenced: ' + fence.reason })
                           : el('span', { class: 'tag open', text: 'open' })),
        el('td', { text: gray.map((g) => (g.when ? g.when.header + '=' + g.when.equals + ' → ' : '') + g.version).join('; ') || '–' })));
    }
  }

  // What a switchover waits on: per unit and link (origin → target), the lag a region measured itself or, newer, the
  // one the control plane computed from both regions' positions (what the origin wrote minus what the target applied).
  function renderLinks() {
    const body = $('links').tBodies[0];
    body.replaceChildren();
    const rows = new Map();
    for (const [from, h] of Object.entries(state.health || {})) {
      for (const [unit, targets] of Object.entries(h.unit_lag || {})) {
        for (const [to, l] of Object.entries(targets)) {
          rows.set(unit + ' ' + from + ' ' + to, { unit, from, to, lag_ms: l.lag_ms, changes: l.changes, exact: true,
                                                   measured_at: l.measured_at, source: 'measured by ' + from });
        }
      }
    }
    for (const l of state.unit_links || []) {
      const key = l.unit + ' ' + l.from + ' ' + l.to;
      const own = rows.get(key);
      if (!own || new Date(l.measured_at) > new Date(own.measured_at)) {
        rows.set(key, Object.assign({ source: 'positions' }, l));
      }
    }
    if (!rows.size) {
      body.append(el('tr', {}, el('td', { colspan: 6, class: 'muted', text: 'No lag reported yet.' })));
      return;
    }
    const homes = new Map(((state.rules && state.rules.units) || []).map((u) => [u.id, u.region]));
    const sorted = [...rows.values()].sort((a, b) => (a.unit + a.from + a.to).localeCompare(b.unit + b.from + b.to));
    let shown = '';
    for (const l of sorted) {
      const home = homes.get(l.unit) === l.from;
      const changes = l.changes === undefined || l.changes < 0 ? '–' : (l.exact ? '' : '≤ ') + l.changes;
      body.append(el('tr', { id: 'link-' + l.unit + '-' + l.from + '-' + l.to, 'data-home': home ? 'true' : 'false' },
        el('td', {}, l.unit === shown ? '' : el('b', { text: l.unit })),
        el('td', { text: l.from + ' → ' + l.to + (home ? ' (from home)' : '') }),
        el('td', { class: 'num', text: changes }),
        el('td', { class: 'num lag', text: (l.exact ? '' : '≤ ') + l.lag_ms + ' ms' }),
        el('td', { text: new Date(l.measured_at).toLocaleTimeString() }),
        el('td', { class: 'muted', text: l.source })));
      shown = l.unit;
    }
  }

  // Per region and unit, what the region's own database says about its copy: entities the merge kept as siblings
  // (open until resolved on record) and the unit's last reconciliation pass against its home. A pass is stalled when
  // the region read it more than three windows after it ran (both times by the region's clock).
  function renderDrift() {
    const body = $('drift').tBodies[0];
    body.replaceChildren();
    const rows = [];
    for (const [region, h] of Object.entries(state.health || {}).sort(([a], [b]) => a.localeCompare(b))) {
      const rec = h.reconciliation;
      if (!rec || !rec.units) continue;
      for (const [unit, u] of Object.entries(rec.units).sort(([a], [b]) => a.localeCompare(b))) {
        rows.push({ region, unit, u, readAt: rec.read_at, freshness: h.freshness });
      }
    }
    if (!rows.length) {
      body.append(el('tr', {}, el('td', { colspan: 6, class: 'muted', text: 'No conflicts or reconciliation '
        + 'reported yet (a postgres check with unitas-schema: true reads them).' })));
      return;
    }
    for (const r of rows) {
      const p = r.u.pass;
      const stalled = p && new Date(r.readAt) - new Date(p.at) > 3 * p.window_ms;
      const status = p && p.failure ? 'failed' : stalled ? 'stalled' : r.u.open_siblings > 0 ? 'conflict'
        : p && p.ranges_pending > 0 ? 'pending' : 'ok';
      const tags = [];
      if (p && p.failure) {
        tags.push(el('span', { class: 'tag fenced', title: p.failure, text: 'failed: ' + p.failure }));
      }
      if (stalled) tags.push(el('span', { class: 'tag fenced', text: 'stalled (window ' + p.window_ms + ' ms)' }));
      if (r.u.open_siblings > 0) tags.push(el('span', { class: 'tag fenced', text: 'siblings open' }));
      if (p && p.ranges_pending > 0) tags.push(el('span', { class: 'tag pending', text: 'writes on their way home' }));
      if (!tags.length) tags.push(el('span', { class: 'tag open', text: 'in sync' }));
      body.append(el('tr', { id: 'drift-' + r.region + '-' + r.unit, 'data-status': status },
        el('td', {}, el('b', { text: r.region }), el('div', { class: 'muted', text: 'report ' + r.freshness })),
        el('td', { text: r.unit }),
        el('td', { class: 'num' }, String(r.u.open_siblings), r.u.oldest_sibling_at
          ? el('div', { class: 'muted', text: 'since ' + new Date(r.u.oldest_sibling_at).toLocaleTimeString() }) : ''),
        el('td', { text: p ? 'against ' + p.home + ' at ' + new Date(p.at).toLocaleTimeString()
                           : 'not reconciled here' }),
        el('td', { class: 'num', text: p ? p.ranges_differing + ' ranges differed, ' + p.keys_repaired
                                           + ' keys repaired, ' + p.ranges_pending + ' pending' : '–' }),
        el('td', {}, tags)));
    }
  }

  function renderSwitchover() {
    const sw = state.switchover;
    const box = $('progress');
    box.replaceChildren();
    if (!sw) return;
    const reached = new Map(sw.steps.map((s) => [s.phase, s]));
    const failed = sw.phase === 'rolled_back' || sw.phase === 'aborted';
    const phases = failed ? sw.steps.map((s) => s.phase) : PHASES;
    box.append(el('p', {},
      el('b', { text: sw.id }), ' ' + sw.units.join(', ') + ' → ' + sw.target + (sw.rpo_ms
        ? ' (promotion, RPO ' + Object.entries(sw.rpo_ms).map(([u, ms]) => u + ' ' + (ms < 0 ? 'unknown' : ms + ' ms')
            + (sw.rpo_changes && sw.rpo_changes[u] >= 0 ? ', ' + sw.rpo_changes[u] + ' changes' : '')).join(', ')
        : ' (max lag of the moving units ' + sw.max_lag_ms + ' ms') + ', by ' + sw.requested_by + ') ',
      el('span', { id: 'switchover-phase', class: sw.phase === 'completed' ? 'outcome-ok' : failed ? 'outcome-bad' : '', text: sw.phase })));
    box.append(el('ol', {}, phases.map((p) => {
      const step = reached.get(p);
      const cls = !step ? '' : (p === 'rolled_back' || p === 'aborted') ? 'failed' : 'done';
      return el('li', { class: cls, title: step ? step.detail : '' },
        p.replace('_', ' ') + (step ? ' · ' + new Date(step.at).toLocaleTimeString() : ''));
    })));
    if (sw.outcome) box.append(el('p', { class: failed ? 'outcome-bad' : 'outcome-ok', text: sw.outcome }));
  }

  // Each bounded-staleness budget of the contract against the largest lag the regions report now: the check CI runs
  // (unitas check consistency --control), live.
  async function refreshBudgets() {
    const r = await api('GET', '/api/v1/budgets');
    if (r.status !== 200) return;
    const body = $('budgets').tBodies[0];
    if (!r.json.budgets.length) {
      body.replaceChildren(el('tr', {}, el('td', { colspan: 5, class: 'muted',
        text: 'No staleness budget declared (start the control plane with --consistency).' })));
      return;
    }
    body.replaceChildren(...r.json.budgets.map((b) => el('tr', { id: 'budget-' + b.name, 'data-over': String(b.over) },
      el('td', {}, el('b', { text: b.name }), el('div', { class: 'muted', text: b.declared_at })),
      el('td', { class: 'num', text: b.budget }),
      el('td', { class: 'num lag', text: b.largest_lag_ms === null ? 'none reported' : b.largest_lag_ms + ' ms' }),
      el('td', { text: b.lagging || '–' }),
      el('td', {}, el('span', { class: 'tag ' + (b.over ? 'fenced' : 'open'), text: b.over ? 'over budget' : 'within' })))));
  }

  async function refreshAudit() {
    const r = await api('GET', '/api/v1/audit?limit=30');
    if (r.status !== 200) return;
    const body = $('audit').tBodies[0];
    body.replaceChildren(...r.json.entries.slice().reverse().map((e) => el('tr', {},
      el('td', { class: 'num', text: e.seq }), el('td', { text: new Date(e.at).toLocaleTimeString() }),
      el('td', { text: e.actor }), el('td', { text: e.action }), el('td', { text: e.target }),
      el('td', { class: e.outcome === 'ok' ? 'outcome-ok' : 'outcome-bad', text: e.outcome }),
      el('td', { text: e.detail + (e.reason ? ' (reason: ' + e.reason + ')' : '') }))));
  }

  function request(dryRun) {
    const units = $('sw-units').value.split(',').map((s) => s.trim()).filter(Boolean);
    const body = {
      // durations in the API's one grammar; what is no whole number comes back as a 400 naming the field
      max_lag: $('sw-maxlag').value + 'ms', timeout: $('sw-timeout').value + 's',
      force: $('sw-force').checked, dry_run: dryRun, reason: 'console',
    };
    if ($('sw-drain').value) body.drain = $('sw-drain').value; else body.units = units;
    if ($('sw-target').value) body.target = $('sw-target').value;
    return body;
  }

  function renderPlan(status, json) {
    const box = $('plan');
    box.hidden = false;
    const plan = json.plan || {};
    const ok = status === 200 && plan.accepted;
    box.className = 'plan ' + (ok ? 'accepted' : 'refused');
    box.replaceChildren(el('h3', { id: 'plan-verdict', text: ok ? 'Plan accepted: nothing has moved yet' : 'Refused: ' + (json.detail || status) }));
    if (plan.moves && plan.moves.length) {
      box.append(el('table', { id: 'plan-moves' },
        el('thead', {}, el('tr', {}, ['Unit', 'From', 'To', 'Load'].map((h) => el('th', { text: h })))),
        el('tbody', {}, plan.moves.map((m) => el('tr', {}, el('td', { text: m.unit }), el('td', { text: m.from }),
                                                          el('td', { text: m.to }), el('td', { class: 'num', text: m.load }))))));
    }
    if (plan.load) {
      const caps = Object.fromEntries(((state.topology || {}).regions || []).map((r) => [r.id, r.capacity]));
      box.append(el('table', { id: 'plan-load' },
        el('thead', {}, el('tr', {}, ['Region', 'Load now', 'Load after', 'Capacity'].map((h) => el('th', { text: h })))),
        el('tbody', {}, Object.entries(plan.load).map(([r, l]) => el('tr', {}, el('td', { text: r }),
          el('td', { class: 'num', text: l.before }),
          el('td', { class: 'num ' + (caps[r] !== undefined && l.after > caps[r] ? 'outcome-bad' : ''), text: l.after }),
          el('td', { class: 'num', text: caps[r] !== undefined ? caps[r] : 'unlimited' }))))));
    }
    const problems = (json.problems || []).concat(plan.warnings || []);
    if (problems.length) {
      box.append(el('ul', { class: 'reasons' }, problems.map((p) => el('li', { text: (p.path ? p.path + ': ' : '') + p.message }))));
    }
    $('start-button').disabled = !ok;
    lastPlan = ok ? request(false) : null;
  }

  $('token-form').addEventListener('submit', (e) => {
    e.preventDefault();
    token = $('token').value.trim();
    localStorage.setItem('unitas.token', token);
    connect();
  });
  $('switch-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const r = await api('POST', '/api/v1/switchovers', request(true));
    renderPlan(r.status, r.json);
  });
  $('start-button').addEventListener('click', async () => {
    if (!lastPlan) return;
    const r = await api('POST', '/api/v1/switchovers', lastPlan);
    $('start-button').disabled = true;
    lastPlan = null;
    if (r.status !== 202) renderPlan(r.status, r.json);
    else $('plan-verdict').textContent = 'Started ' + r.json.switchover.id + ': progress below';
  });

  connect();
})();
