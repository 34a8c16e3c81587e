// skail Monitor. Everything shown comes from the API and is inserted as text (textContent), never as HTML.
'use strict';

const state = { page: 0, size: 20, current: null, poll: null };

// the application's root, whatever its context path: this script is served at <root>/skail/monitor.js
const root = new URL('..', document.currentScript.src).pathname;

function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) {
        node.textContent = String(text);
    }
    if (className) {
        node.className = className;
    }
    return node;
}

function time(value) {
    return value ? new Date(value).toLocaleString() : '';
}

function duration(start, end) {
    if (!start || !end) {
        return '';
    }
    const ms = new Date(end) - new Date(start);
    return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(1) + ' s';
}

// an ISO-8601 duration as the API sends it (PT0.2S, PT1M4S) in plain words
function backoff(value) {
    const match = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$/.exec(value || '');
    if (!match) {
        return value || '';
    }
    const seconds = (+(match[1] || 0)) * 3600 + (+(match[2] || 0)) * 60 + (+(match[3] || 0));
    return seconds < 60 ? seconds + ' s' : (seconds / 60).toFixed(1) + ' min';
}

function json(value) {
    return value === null || value === undefined ? '' : JSON.stringify(value, null, 2);
}

// The API's answer parsed with every number that a JavaScript number would change (150.00, 12345678901234567.89)
// kept as its JSON text, so that arguments and results show as recorded: JSON.stringify writes JSON.rawJSON back
// verbatim. A browser without JSON.parse source text access (Chrome 114, Firefox 135 and later have it) shows the
// number as JavaScript reads it.
function parseExact(text) {
    const exact = typeof JSON.rawJSON === 'function';
    return JSON.parse(text, function (key, value, context) {
        if (exact && typeof value === 'number' && context && typeof context.source === 'string'
                && context.source !== String(value)) {
            return JSON.rawJSON(context.source);
        }
        return value;
    });
}

async function api(path, options) {
    const request = Object.assign({}, options || {});
    // skail's own header: POSTs without it (or JSON) are refused, so that no other site can forge them
    request.headers = Object.assign({ 'Accept': 'application/json', 'X-Skail-Request': 'monitor' },
        request.headers || {});
    const response = await fetch(root + path.replace(/^\//, ''), request);
    const body = response.status === 204 ? null : await response.text().then(parseExact).catch(() => null);
    if (!response.ok) {
        throw new Error((body && (body.detail || body.title)) || ('HTTP ' + response.status));
    }
    return body;
}

function message(text) {
    document.getElementById('message').textContent = text || '';
}

async function loadList() {
    const params = new URLSearchParams({ page: state.page, size: state.size });
    const status = document.getElementById('filter-status').value;
    const fn = document.getElementById('filter-function').value.trim();
    const id = document.getElementById('filter-id').value.trim();
    if (status) params.set('status', status);
    if (fn) params.set('function', fn);
    if (id) params.set('id', id);
    const page = await api('/api/v1/executions?' + params);
    document.getElementById('workload').textContent = page.workload + ':' + page.version;
    const body = document.querySelector('#executions tbody');
    body.replaceChildren();
    for (const execution of page.items) {
        const row = el('tr', null, 'clickable');
        row.dataset.taskId = execution.taskId;
        row.append(el('td', execution.taskId), el('td', execution.function),
            el('td', execution.status + (execution.waitingFor ? ' (waits for a runtime of ' + execution.waitingFor
                + ')' : ''), 'status status-' + execution.status), el('td', execution.attempt),
            el('td', time(execution.createdAt)), el('td', time(execution.updatedAt)));
        row.addEventListener('click', () => showDetail(execution.taskId));
        body.append(row);
    }
    document.getElementById('page-number').textContent = 'page ' + (page.page + 1);
    document.getElementById('previous-page').disabled = page.page === 0;
    document.getElementById('next-page').disabled = !page.hasMore;
}

async function showDetail(taskId) {
    state.current = taskId;
    if (location.hash !== '#' + encodeURIComponent(taskId)) {
        history.pushState(null, '', '#' + encodeURIComponent(taskId));
    }
    document.getElementById('list-view').hidden = true;
    document.getElementById('detail-view').hidden = false;
    message('');
    await renderDetail();
    clearInterval(state.poll);
    state.poll = setInterval(() => renderDetail().catch((e) => message(e.message)), 1000);
}

async function renderDetail() {
    const taskId = state.current;
    const history = await api('/api/v1/executions/' + encodeURIComponent(taskId) + '/history');
    const execution = history.execution;
    document.getElementById('workload').textContent = execution.workload + ':' + execution.version;
    document.getElementById('detail-title').textContent = execution.taskId;
    const summary = document.getElementById('detail-summary');
    summary.replaceChildren();
    const rows = [['Function', execution.function], ['Status', execution.status], ['Attempt', execution.attempt],
        ['Created', time(execution.createdAt)], ['Updated', time(execution.updatedAt)],
        ['Due', time(execution.nextRunAt)], ['Parent', execution.parentTaskId || '']];
    if (execution.waitingFor) {
        // S12: no runtime of its version is running; it runs once one starts
        rows.splice(2, 0, ['Waits for', 'a runtime of ' + execution.waitingFor]);
    }
    for (const [name, value] of rows) {
        const dd = el('dd', value, name === 'Status' ? 'status status-' + value : null);
        if (name === 'Status') dd.id = 'detail-status';
        summary.append(el('dt', name), dd);
    }
    document.getElementById('detail-arguments').textContent = json(execution.arguments);
    const failed = execution.status === 'FAILED' && execution.error;
    document.getElementById('outcome-title').textContent = failed ? 'Exception' : 'Result';
    const outcome = document.getElementById('detail-outcome');
    outcome.textContent = failed
        ? execution.error.type + ': ' + (execution.error.message || '') + '\n\n' + (execution.error.stackTrace || '')
        : json(execution.result);
    document.getElementById('resume').hidden = execution.status !== 'FAILED';
    document.getElementById('cancel').hidden = ['COMPLETED', 'FAILED', 'CANCELLED'].includes(execution.status);
    document.getElementById('download').href =
        root + 'api/v1/executions/' + encodeURIComponent(taskId) + '/history?download=true';

    const timeline = document.querySelector('#timeline tbody');
    timeline.replaceChildren();
    for (const step of history.steps) {
        const row = el('tr');
        const attempts = el('td');
        const list = el('ol', null, 'attempts');
        for (const attempt of step.attempts) {
            const error = attempt.error ? ' ' + attempt.error.type + ': ' + (attempt.error.message || '') : '';
            const wait = attempt.backoff ? ' after ' + backoff(attempt.backoff) : '';
            list.append(el('li', '#' + attempt.number + ' (function attempt ' + attempt.functionAttempt + ') '
                + attempt.outcome + error + ' → ' + attempt.decision + wait
                + ' [' + duration(attempt.startedAt, attempt.endedAt) + ']'));
        }
        attempts.append(list);
        const stepError = step.error ? step.error.type + ': ' + (step.error.message || '') : '';
        row.append(el('td', step.position), el('td', step.kind), el('td', step.name),
            el('td', step.status + (stepError ? ' — ' + stepError : ''), 'status status-' + step.status),
            el('td', time(step.startedAt)), el('td', duration(step.startedAt, step.completedAt)), attempts);
        timeline.append(row);
    }
    const functionAttempts = document.querySelector('#function-attempts tbody');
    functionAttempts.replaceChildren();
    for (const attempt of history.functionAttempts) {
        const row = el('tr');
        functionAttempts.append(row);
        row.append(el('td', attempt.functionAttempt), el('td', attempt.outcome),
            el('td', attempt.error ? attempt.error.type + ': ' + (attempt.error.message || '') : ''),
            el('td', attempt.decision), el('td', backoff(attempt.backoff)));
    }
}

function showList() {
    clearInterval(state.poll);
    state.current = null;
    if (location.hash) {
        history.pushState(null, '', location.pathname);
    }
    document.getElementById('detail-view').hidden = true;
    document.getElementById('list-view').hidden = false;
    loadList().catch((e) => message(e.message));
}

document.addEventListener('DOMContentLoaded', () => {
    document.getElementById('filters').addEventListener('submit', (event) => {
        event.preventDefault();
        state.page = 0;
        loadList().catch((e) => message(e.message));
    });
    document.getElementById('previous-page').addEventListener('click', () => {
        state.page = Math.max(0, state.page - 1);
        loadList().catch((e) => message(e.message));
    });
    document.getElementById('next-page').addEventListener('click', () => {
        state.page += 1;
        loadList().catch((e) => message(e.message));
    });
    document.getElementById('back').addEventListener('click', showList);
    document.getElementById('resume').addEventListener('click', async () => {
        try {
            await api('/api/v1/executions/' + encodeURIComponent(state.current) + '/resume', { method: 'POST' });
            message('Resumed');
            await renderDetail();
        }
        catch (e) {
            message(e.message);
        }
    });
    document.getElementById('cancel').addEventListener('click', async () => {
        if (!window.confirm('Cancel execution ' + state.current + '? Its function sees SkailCancelledException '
                + 'at its current step, may compensate, and ends CANCELLED.')) {
            return;
        }
        try {
            await api('/api/v1/executions/' + encodeURIComponent(state.current) + '/cancel', { method: 'POST' });
            message('Cancel requested');
            await renderDetail();
        }
        catch (e) {
            message(e.message);
        }
    });
    document.getElementById('fire-form').addEventListener('submit', async (event) => {
        event.preventDefault();
        const name = document.getElementById('fire-name').value.trim();
        const payload = document.getElementById('fire-payload').value.trim();
        try {
            const execution = await api('/api/v1/executions/' + encodeURIComponent(state.current));
            await api('/api/v1/fire/' + encodeURIComponent(execution.workload) + '/' + encodeURIComponent(execution.version)
                + '/' + encodeURIComponent(state.current) + '/' + encodeURIComponent(name),
                { method: 'POST', headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' }, body: payload });
            message('Event ' + name + ' fired');
            await renderDetail();
        }
        catch (e) {
            message(e.message);
        }
    });
    route();
    window.addEventListener('popstate', route);
});

// the page's address names what it shows: /skail (the list) or /skail#pedido-1 (one execution)
function route() {
    let taskId = null;
    try {
        taskId = location.hash.length > 1 ? decodeURIComponent(location.hash.substring(1)) : null;
    }
    catch (e) {
        taskId = null;
    }
    if (taskId) {
        showDetail(taskId).catch((e) => message(e.message));
    }
    else if (state.current !== null || document.getElementById('list-view').hidden === false) {
        clearInterval(state.poll);
        state.current = null;
        document.getElementById('detail-view').hidden = true;
        document.getElementById('list-view').hidden = false;
        loadList().catch((e) => message(e.message));
    }
}
