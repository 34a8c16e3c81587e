// skail Monitor. Everything shown comes from the API and is inserted as text (textContent), never as HTML.
'use strict';

const STATUSES = ['PENDING', 'RUNNING', 'WAITING', 'COMPLETED', 'FAILED', 'CANCELLED'];
const ENDED = ['COMPLETED', 'FAILED', 'CANCELLED'];

const state = {
    page: 0,
    size: 20,
    // the filters the list shows (applied with the Filter button), not what is being typed in the form
    filters: { status: '', function: '', id: '', timeField: 'created', from: '', to: '', tags: [] },
    // the execution shown in the detail, null while the list is shown
    current: null,
    // the message that says the counts could not be read, cleared once they can
    countsFailure: null,
    listScroll: 0,
    listRequest: 0,
    confirming: false,
    started: false,
    refresh: { timer: null, running: false, last: 0 }
};

// the application's root, whatever its context path: this script is served at <root>/skail/monitor.js
const root = new URL('..', document.currentScript.src).pathname;

function $(id) {
    return document.getElementById(id);
}

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

// sets a node's text only when it changed, so that what the operator selected in it stays selected
function setText(node, text) {
    const value = text === undefined || text === null ? '' : String(text);
    if (node.textContent !== value) {
        node.textContent = value;
    }
}

function link(taskId, text) {
    const a = el('a', text === undefined ? taskId : text);
    a.href = '#' + encodeURIComponent(taskId);
    a.className = 'execution-link';
    return a;
}

// ---- times: shown in the operator's time zone, the UTC instant on hover ----

function pad(value) {
    return String(value).padStart(2, '0');
}

function localTime(date) {
    return date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()) + ' '
        + pad(date.getHours()) + ':' + pad(date.getMinutes()) + ':' + pad(date.getSeconds());
}

function time(value) {
    const node = el('time');
    if (!value) {
        return node;
    }
    const date = new Date(value);
    if (isNaN(date.getTime())) {
        node.textContent = String(value);
        return node;
    }
    const utc = date.toISOString();
    node.textContent = localTime(date);
    node.dateTime = utc;
    node.title = utc;
    return node;
}

function zoneLabel() {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
    const minutes = -new Date().getTimezoneOffset();
    const offset = 'UTC' + (minutes < 0 ? '−' : '+') + pad(Math.floor(Math.abs(minutes) / 60)) + ':'
        + pad(Math.abs(minutes) % 60);
    return 'Times in ' + zone + ' (' + offset + '); hover a time for UTC';
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

// what the runtime decided after an attempt, in words
function decision(attempt) {
    switch (attempt.decision) {
        case 'RECORDED': return 'recorded';
        case 'RETRY': return 'retried' + (attempt.backoff ? ' after ' + backoff(attempt.backoff) : '');
        case 'GIVE_UP': return 'gave up: attempts spent';
        case 'NOT_RETRYABLE': return 'not retried (noRetryFor)';
        default: return attempt.decision || '';
    }
}

function outcome(value) {
    return value === 'SUCCEEDED' ? 'succeeded' : value === 'FAILED' ? 'failed' : (value || '');
}

function errorLine(error) {
    return error ? error.type + ': ' + (error.message || '') : '';
}

// the exception once: its stack trace begins with the same "type: message" line, so it is not repeated above it
function errorText(error) {
    if (!error) {
        return '';
    }
    const trace = error.stackTrace || '';
    return trace.startsWith(error.type) ? trace : errorLine(error) + (trace ? '\n' + trace : '');
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
        const error = new Error((body && (body.detail || body.title)) || ('HTTP ' + response.status));
        error.status = response.status;
        error.body = body;
        throw error;
    }
    return body;
}

function message(text) {
    setText($('message'), text);
}

// Rows kept in place: a row whose data did not change is left as it is (no flicker, the operator's selection in
// it stays), a changed one is rebuilt, the order follows the data.
function syncRows(parent, items, keyOf, build) {
    const existing = new Map();
    for (const row of Array.from(parent.children)) {
        existing.set(row.dataset.key, row);
    }
    let previous = null;
    for (const item of items) {
        const key = String(keyOf(item));
        const signature = JSON.stringify(item);
        let row = existing.get(key);
        existing.delete(key);
        if (!row || row.dataset.signature !== signature) {
            const fresh = build(item);
            fresh.dataset.key = key;
            fresh.dataset.signature = signature;
            if (row) {
                row.replaceWith(fresh);
            }
            row = fresh;
        }
        const expected = previous ? previous.nextSibling : parent.firstChild;
        if (row !== expected) {
            parent.insertBefore(row, expected);
        }
        previous = row;
    }
    for (const row of existing.values()) {
        row.remove();
    }
}

function cell(content, className) {
    const td = el('td', null, className);
    if (content instanceof Node) {
        td.append(content);
    }
    else {
        td.textContent = content === undefined || content === null ? '' : String(content);
    }
    return td;
}

// ---- filters ----

function readFilters() {
    const tags = $('filter-tags').value.split(',').map((tag) => tag.trim()).filter((tag) => tag.length > 0);
    return {
        status: $('filter-status').value,
        function: $('filter-function').value.trim(),
        id: $('filter-id').value.trim(),
        timeField: $('filter-time-field').value,
        from: $('filter-from').value,
        to: $('filter-to').value,
        tags: tags
    };
}

function instant(local) {
    const date = new Date(local);
    return isNaN(date.getTime()) ? null : date.toISOString();
}

// the query of the filters (GET /api/v1/executions, its counts and the bulk actions take the same parameters)
function filterParams(filters, withStatus) {
    const params = new URLSearchParams();
    if (withStatus && filters.status) params.set('status', filters.status);
    if (filters.function) params.set('function', filters.function);
    if (filters.id) params.set('id', filters.id);
    const field = filters.timeField === 'updated' ? 'updated' : 'created';
    const from = filters.from ? instant(filters.from) : null;
    const to = filters.to ? instant(filters.to) : null;
    if (from) params.set(field + 'From', from);
    if (to) params.set(field + 'To', to);
    for (const tag of filters.tags) {
        params.append('tag', tag);
    }
    return params;
}

function describeFilters(filters) {
    const parts = [];
    if (filters.status) parts.push('status ' + filters.status);
    if (filters.function) parts.push('function ' + filters.function);
    if (filters.id) parts.push('id containing "' + filters.id + '"');
    if (filters.from) parts.push(filters.timeField + ' from ' + localTime(new Date(filters.from)));
    if (filters.to) parts.push(filters.timeField + ' before ' + localTime(new Date(filters.to)));
    if (filters.tags.length) parts.push('business keys ' + filters.tags.join(', '));
    return parts.length ? parts.join(', ') : 'no filter: every execution';
}

// ---- the list ----

async function loadList() {
    const request = ++state.listRequest;
    const params = filterParams(state.filters, true);
    params.set('page', state.page);
    params.set('size', state.size);
    const page = await api('/api/v1/executions?' + params);
    if (request !== state.listRequest) {
        return; // a newer request (another page, other filters) answers for the list
    }
    setText($('workload'), page.workload + ':' + page.version);
    syncRows(document.querySelector('#executions tbody'), page.items, (execution) => execution.taskId, listRow);
    $('no-executions').hidden = page.items.length > 0;
    setText($('no-executions'), page.page === 0 ? 'No execution matches the filters.' : 'No executions on this page.');
    setText($('page-number'), 'page ' + (page.page + 1));
    $('previous-page').disabled = page.page === 0;
    $('next-page').disabled = !page.hasMore;
}

function listRow(execution) {
    const row = el('tr', null, 'clickable');
    row.dataset.taskId = execution.taskId;
    row.append(cell(link(execution.taskId)), cell(execution.function),
        cell(execution.status + (execution.waitingFor ? ' (waits for a runtime of ' + execution.waitingFor + ')'
            : ''), 'status status-' + execution.status),
        cell(execution.attempt), cell(execution.parentTaskId ? link(execution.parentTaskId) : ''),
        cell(time(execution.createdAt)), cell(time(execution.updatedAt)));
    row.addEventListener('click', (event) => {
        // a click on a link follows it; selecting text in the row opens nothing
        if (event.target.closest('a') || String(window.getSelection()).length > 0) {
            return;
        }
        location.hash = '#' + encodeURIComponent(execution.taskId);
    });
    return row;
}

// Counts by status over the filters other than the status, so that each count says how many a click on it lists.
// When they cannot be read (the store is unavailable: 503), they show as unknown and the failure is reported; the
// list is read on its own and still shows.
async function loadCounts() {
    let counts;
    try {
        counts = await api('/api/v1/executions/counts?' + filterParams(state.filters, false));
    }
    catch (e) {
        renderCounts(null);
        const failure = new Error('Counts unavailable: ' + e.message);
        state.countsFailure = failure.message;
        throw failure;
    }
    if (state.countsFailure !== null && $('message').textContent === state.countsFailure) {
        message('');
    }
    state.countsFailure = null;
    renderCounts(counts);
}

// the counts, or null when they are unknown
function renderCounts(counts) {
    const bar = $('counts');
    const value = (count) => counts === null ? '–' : (count || 0);
    const entries = [['', 'All', value(counts && counts.total)]]
        .concat(STATUSES.map((status) => [status, status, value(counts && counts[status])]));
    if (bar.children.length !== entries.length) {
        bar.replaceChildren();
        for (const [status] of entries) {
            const button = el('button', null, 'count' + (status ? ' status-' + status : ''));
            button.type = 'button';
            button.dataset.status = status;
            button.append(el('span', null, 'count-label'), el('span', null, 'count-value'));
            button.addEventListener('click', () => filterByStatus(status));
            bar.append(button);
        }
    }
    entries.forEach(([status, label, value], index) => {
        const button = bar.children[index];
        setText(button.querySelector('.count-label'), label);
        setText(button.querySelector('.count-value'), value);
        button.setAttribute('aria-pressed', String(state.filters.status === status));
    });
    bar.classList.toggle('unknown', counts === null);
}

function filterByStatus(status) {
    $('filter-status').value = status;
    applyFilters();
}

function applyFilters() {
    state.filters = readFilters();
    state.page = 0;
    for (const field of $('filters').elements) {
        delete field.dataset.edited;
    }
    refreshNow(true);
}

// Resumes or cancels every execution the list's filters match that the action applies to (cancel: those that have
// not ended; resume: the FAILED ones), once the operator confirmed how many that is. The API acts only when the
// confirmed count (expected) is still right; a 409 says how many match now, and the operator confirms again.
async function bulk(action) {
    const filters = state.filters;
    const query = filterParams(filters, true);
    const applies = (action === 'cancel' ? ['PENDING', 'RUNNING', 'WAITING'] : ['FAILED'])
        .filter((status) => !filters.status || filters.status === status);
    let expected = 0;
    if (applies.length) {
        const counts = await api('/api/v1/executions/counts?' + filterParams(filters, false));
        expected = applies.reduce((sum, status) => sum + (counts[status] || 0), 0);
    }
    let changed = false;
    for (;;) {
        if (expected === 0) {
            message((action === 'cancel' ? 'No execution that has not ended' : 'No FAILED execution')
                + ' matches the filters (' + describeFilters(filters) + '): none to ' + action);
            return;
        }
        const plural = expected !== 1;
        const question = (changed ? 'The filtered set changed meanwhile. ' : '')
            + (action === 'cancel'
                ? 'Cancel ' + expected + ' execution' + (plural ? 's that have not ended' : ' that has not ended')
                : 'Resume ' + expected + ' FAILED execution' + (plural ? 's' : ''))
            + ' (' + describeFilters(filters) + ')? '
            + (action === 'cancel' ? 'Each sees SkailCancelledException at its current step, may compensate, and '
                + 'ends CANCELLED.'
                : 'Commands already recorded do not run again; the failed command and the function start their '
                + 'attempts over.');
        if (!confirmAction(question)) {
            return;
        }
        const params = new URLSearchParams(query);
        params.set('expected', expected);
        try {
            const done = await api('/api/v1/executions/' + action + '?' + params, { method: 'POST' });
            message((action === 'cancel' ? 'Cancel requested for ' : 'Resumed ') + done.acted + ' of ' + done.matched
                + ' execution' + (done.matched === 1 ? '' : 's') + (done.skipped ? '; ' + done.skipped + ' skipped' : ''));
            refreshNow(false);
            settle();
            return;
        }
        catch (e) {
            if (e.status !== 409) {
                throw e;
            }
            // how many match now; re-counted when the answer does not say
            const matched = e.body && typeof e.body.matched === 'number' ? e.body.matched : null;
            expected = matched !== null ? matched : await recount(filters, applies);
            changed = true;
        }
    }
}

async function recount(filters, applies) {
    const counts = await api('/api/v1/executions/counts?' + filterParams(filters, false));
    return applies.reduce((sum, status) => sum + (counts[status] || 0), 0);
}

// ---- schedules ----

// the application's schedules (GET /api/v1/schedules), under the list; hidden when there are none or they cannot be
// read (the list reports what went wrong with the store)
async function loadSchedules() {
    let page;
    try {
        page = await api('/api/v1/schedules');
    }
    catch (e) {
        return;
    }
    const items = (page && page.items) || [];
    syncRows(document.querySelector('#schedules tbody'), items, (schedule) => schedule.function, scheduleRow);
    $('schedules-view').hidden = items.length === 0;
}

function scheduleRow(schedule) {
    const row = el('tr');
    row.dataset.function = schedule.function;
    const disabled = schedule.cron === '-';
    // the latest tick's execution opens in the detail view (its address is /skail#<id>)
    row.append(cell(schedule.function), cell(disabled ? 'disabled' : schedule.cron), cell(schedule.zone),
        cell(time(schedule.nextTick)), cell(schedule.lastTaskId ? link(schedule.lastTaskId) : ''),
        cell((schedule.version || '') + (schedule.declaredHere ? '' : ' (not by this runtime)')));
    return row;
}

// ---- one execution ----

function openDetail(taskId) {
    if (!$('list-view').hidden) {
        state.listScroll = window.scrollY;
    }
    state.current = taskId;
    for (const id of ['detail-title', 'detail-summary', 'detail-children', 'detail-arguments', 'detail-outcome']) {
        $(id).replaceChildren();
    }
    document.querySelector('#timeline tbody').replaceChildren();
    document.querySelector('#function-attempts tbody').replaceChildren();
    delete $('detail-summary').dataset.signature;
    $('list-view').hidden = true;
    $('detail-view').hidden = false;
    setText($('detail-title'), taskId);
    window.scrollTo(0, 0);
    message('');
    refreshNow(true);
}

function openList() {
    state.current = null;
    $('detail-view').hidden = true;
    $('list-view').hidden = false;
    message('');
    refreshNow(true).then(() => window.scrollTo(0, state.listScroll));
}

async function renderDetail() {
    const taskId = state.current;
    const history = await api('/api/v1/executions/' + encodeURIComponent(taskId) + '/history');
    if (taskId !== state.current) {
        return; // the operator went on to another execution meanwhile
    }
    const execution = history.execution;
    setText($('workload'), execution.workload + ':' + execution.version);
    setText($('detail-title'), execution.taskId);
    renderSummary(execution, history.steps);

    setText($('detail-arguments'), json(execution.arguments));
    const ended = ENDED.includes(execution.status);
    $('outcome-section').hidden = !ended;
    const title = execution.status === 'FAILED' ? 'Exception'
        : execution.status === 'CANCELLED' ? 'Cancellation' : 'Result';
    setText($('outcome-title'), title);
    setText($('detail-outcome'), execution.status === 'COMPLETED' ? json(execution.result) : errorText(execution.error));

    $('resume').hidden = execution.status !== 'FAILED';
    $('cancel').hidden = ended;
    // only an execution that has not ended can take an event
    $('fire-form').hidden = ended;
    const download = root + 'api/v1/executions/' + encodeURIComponent(taskId) + '/history?download=true';
    if ($('download').getAttribute('href') !== download) {
        $('download').href = download;
    }

    const children = history.steps.filter((step) => step.childTaskId);
    $('children-section').hidden = children.length === 0;
    syncRows($('detail-children'), children, (step) => step.childTaskId, (step) => {
        const item = el('li');
        item.append(link(step.childTaskId), ' ' + step.name + ' (step ' + step.position + ', ' + step.status + ')');
        return item;
    });

    syncRows(document.querySelector('#timeline tbody'), history.steps, (step) => step.position, timelineRow);
    $('function-attempts-section').hidden = history.functionAttempts.length === 0;
    syncRows(document.querySelector('#function-attempts tbody'), history.functionAttempts,
        (attempt) => attempt.functionAttempt + '/' + attempt.number, (attempt) => {
            const row = el('tr');
            row.append(cell(attempt.functionAttempt), cell(time(attempt.startedAt)),
                cell(duration(attempt.startedAt, attempt.endedAt), 'nowrap'), cell(outcome(attempt.outcome)),
                exceptionCell(attempt.error), cell(decision(attempt)));
            return row;
        });
}

function renderSummary(execution, steps) {
    const rows = [['Function', execution.function], ['Status', execution.status]];
    if (execution.waitingFor) {
        // S12: no runtime of its version is running; it runs once one starts
        rows.push(['Waits for', 'a runtime of ' + execution.waitingFor]);
    }
    const events = steps.filter((step) => step.kind === 'EVENT' && !step.completedAt).map((step) => step.name);
    if (events.length && !ENDED.includes(execution.status)) {
        rows.push(['Waits for event', events.join(', ')]);
    }
    rows.push(['Attempt', execution.attempt], ['Created', execution.createdAt], ['Updated', execution.updatedAt]);
    if (execution.nextRunAt) {
        rows.push(['Due', execution.nextRunAt]);
    }
    if (execution.parentTaskId) {
        rows.push(['Parent', execution.parentTaskId]);
    }
    const summary = $('detail-summary');
    const signature = JSON.stringify(rows);
    if (summary.dataset.signature === signature) {
        return;
    }
    summary.dataset.signature = signature;
    summary.replaceChildren();
    for (const [name, value] of rows) {
        let dd;
        if (name === 'Status') {
            dd = el('dd', value, 'status status-' + value);
            dd.id = 'detail-status';
        }
        else if (name === 'Parent') {
            dd = el('dd');
            dd.id = 'detail-parent';
            dd.append(link(value));
        }
        else if (['Created', 'Updated', 'Due'].includes(name)) {
            dd = el('dd');
            dd.append(time(value));
        }
        else {
            dd = el('dd', value);
        }
        summary.append(el('dt', name), dd);
    }
}

function exceptionCell(error) {
    const td = cell(errorLine(error));
    if (error && error.stackTrace) {
        td.title = error.stackTrace;
    }
    return td;
}

function timelineRow(step) {
    const row = el('tr');
    const name = step.childTaskId ? link(step.childTaskId, step.name) : step.name;
    const stepError = errorLine(step.error);
    const attempts = el('td');
    if (step.attempts.length) {
        const table = el('table', null, 'attempts');
        const head = el('tr');
        for (const title of ['Attempt', 'Function attempt', 'Started', 'Took', 'Outcome', 'Exception', 'Then']) {
            head.append(el('th', title));
        }
        const thead = el('thead');
        thead.append(head);
        const body = el('tbody');
        for (const attempt of step.attempts) {
            const line = el('tr');
            line.append(cell(attempt.number), cell(attempt.functionAttempt), cell(time(attempt.startedAt)),
                cell(duration(attempt.startedAt, attempt.endedAt), 'nowrap'), cell(outcome(attempt.outcome)),
                exceptionCell(attempt.error), cell(decision(attempt)));
            body.append(line);
        }
        table.append(thead, body);
        attempts.append(table);
    }
    row.append(cell(step.position), cell(step.kind), cell(name),
        cell(step.status + (stepError ? ' — ' + stepError : ''), 'status status-' + step.status),
        cell(time(step.startedAt)), cell(duration(step.startedAt, step.completedAt), 'nowrap'), attempts);
    return row;
}

// ---- auto-refresh ----

function refreshInterval() {
    return (+$('refresh-interval').value || 5) * 1000;
}

// a field of a form the operator edited and still has focus in
function typing() {
    const active = document.activeElement;
    return !!(active && active.form && active.dataset.edited === '1');
}

function pauseReason() {
    if (state.confirming) return 'paused while a confirmation is open';
    if (typing()) return 'paused while you type';
    if (document.hidden) return 'paused while the page is hidden';
    return '';
}

function confirmAction(text) {
    state.confirming = true;
    showRefreshState();
    try {
        return window.confirm(text);
    }
    finally {
        state.confirming = false;
        showRefreshState();
    }
}

function showRefreshState(failure) {
    const text = failure ? 'refresh failed: ' + failure
        : !$('auto-refresh').checked ? 'auto-refresh off' : pauseReason();
    setText($('refresh-state'), text);
}

// refreshes what is shown now; `explicit` (navigation, filters, a button) also reports failures as messages
async function refreshNow(explicit) {
    if (state.refresh.running && !explicit) {
        return;
    }
    state.refresh.running = true;
    state.refresh.last = Date.now();
    try {
        if (state.current !== null) {
            await renderDetail();
        }
        else {
            // each part shows what it could read; the list's failure is reported first
            const [list, counts] = await Promise.allSettled([loadList(), loadCounts(), loadSchedules()]);
            for (const part of [list, counts]) {
                if (part.status === 'rejected') {
                    throw part.reason;
                }
            }
        }
        showRefreshState();
    }
    catch (e) {
        if (explicit) {
            message(e.message);
        }
        else {
            showRefreshState(e.message);
        }
    }
    finally {
        state.refresh.running = false;
    }
    schedule();
}

// one timer: it looks every half second whether the interval has passed and nothing holds the refresh back
function schedule() {
    clearTimeout(state.refresh.timer);
    state.refresh.timer = setTimeout(tick, Math.min(500, refreshInterval()));
}

function tick() {
    showRefreshState();
    if ($('auto-refresh').checked && !pauseReason() && Date.now() - state.refresh.last >= refreshInterval()) {
        refreshNow(false);
        return;
    }
    schedule();
}

// after an action the page looks again shortly, whatever the auto-refresh, so that its effect shows
function settle() {
    for (const delay of [300, 1000, 2500]) {
        setTimeout(() => refreshNow(false), delay);
    }
}

// ---- navigation ----

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
        if (taskId !== state.current || $('detail-view').hidden) {
            openDetail(taskId);
        }
    }
    else if (state.current !== null || !state.started) {
        openList();
    }
    state.started = true;
}

document.addEventListener('DOMContentLoaded', () => {
    setText($('time-zone'), zoneLabel());
    $('filters').addEventListener('submit', (event) => {
        event.preventDefault();
        applyFilters();
    });
    $('clear-filters').addEventListener('click', () => {
        $('filters').reset();
        applyFilters();
    });
    $('previous-page').addEventListener('click', () => {
        state.page = Math.max(0, state.page - 1);
        refreshNow(true);
    });
    $('next-page').addEventListener('click', () => {
        state.page += 1;
        refreshNow(true);
    });
    $('back').addEventListener('click', () => {
        history.pushState(null, '', location.pathname + location.search);
        route();
    });
    // a field being typed in holds the refresh back until it loses focus or its form is sent
    document.addEventListener('input', (event) => {
        if (event.target.form) {
            event.target.dataset.edited = '1';
            showRefreshState();
        }
    });
    document.addEventListener('focusout', (event) => {
        if (event.target.dataset) {
            delete event.target.dataset.edited;
        }
    });
    $('auto-refresh').addEventListener('change', () => {
        showRefreshState();
        if ($('auto-refresh').checked) refreshNow(false);
    });
    $('refresh-interval').addEventListener('change', schedule);
    $('refresh-now').addEventListener('click', () => refreshNow(true));
    $('bulk-resume').addEventListener('click', () => bulk('resume').catch((e) => message(e.message)));
    $('bulk-cancel').addEventListener('click', () => bulk('cancel').catch((e) => message(e.message)));
    $('resume').addEventListener('click', async () => {
        try {
            await api('/api/v1/executions/' + encodeURIComponent(state.current) + '/resume', { method: 'POST' });
            message('Resumed');
            await refreshNow(true);
            settle();
        }
        catch (e) {
            message(e.message);
        }
    });
    $('cancel').addEventListener('click', async () => {
        if (!confirmAction('Cancel execution ' + state.current + '? Its function sees SkailCancelledException '
                + 'at its current step, may compensate, and ends CANCELLED.')) {
            return;
        }
        try {
            await api('/api/v1/executions/' + encodeURIComponent(state.current) + '/cancel', { method: 'POST' });
            message('Cancel requested');
            await refreshNow(true);
            settle();
        }
        catch (e) {
            message(e.message);
        }
    });
    $('fire-form').addEventListener('submit', async (event) => {
        event.preventDefault();
        for (const field of $('fire-form').elements) {
            delete field.dataset.edited;
        }
        const name = $('fire-name').value.trim();
        const payload = $('fire-payload').value.trim();
        try {
            const execution = await api('/api/v1/executions/' + encodeURIComponent(state.current));
            await api('/api/v1/fire/' + encodeURIComponent(execution.workload) + '/' + encodeURIComponent(execution.version)
                + '/' + encodeURIComponent(state.current) + '/' + encodeURIComponent(name),
                { method: 'POST', headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' }, body: payload });
            message('Event ' + name + ' fired');
            await refreshNow(true);
            settle();
        }
        catch (e) {
            message(e.message);
        }
    });
    document.addEventListener('visibilitychange', showRefreshState);
    window.addEventListener('hashchange', route);
    window.addEventListener('popstate', route);
    route();
});
