// skail Monitor: the Schedules section (GET /api/v1/schedules), self-contained. Everything shown comes from the API
// and is inserted as text (textContent), never as HTML.
'use strict';

(function () {
    // the application's root, whatever its context path: this script is served at <root>/skail/schedules.js
    const root = new URL('..', document.currentScript.src).pathname;

    function cell(text, className) {
        const td = document.createElement('td');
        td.textContent = text === null || text === undefined ? '' : String(text);
        if (className) {
            td.className = className;
        }
        return td;
    }

    function when(value) {
        return value ? new Date(value).toLocaleString() : '';
    }

    function section() {
        const view = document.createElement('section');
        view.id = 'schedules-view';
        view.hidden = true;
        const title = document.createElement('h2');
        title.textContent = 'Schedules';
        const table = document.createElement('table');
        table.id = 'schedules';
        const head = document.createElement('tr');
        for (const name of ['Function', 'Cron', 'Zone', 'Next tick', 'Last execution', 'Declared by']) {
            const th = document.createElement('th');
            th.textContent = name;
            head.append(th);
        }
        const thead = document.createElement('thead');
        thead.append(head);
        table.append(thead, document.createElement('tbody'));
        view.append(title, table);
        return view;
    }

    async function load(view) {
        const response = await fetch(root + 'api/v1/schedules',
            { headers: { 'Accept': 'application/json', 'X-Skail-Request': 'monitor' } });
        if (!response.ok) {
            return;
        }
        const page = await response.json();
        const body = view.querySelector('tbody');
        body.replaceChildren();
        for (const schedule of page.items) {
            const row = document.createElement('tr');
            row.dataset.function = schedule.function;
            const disabled = schedule.cron === '-';
            const last = cell('');
            if (schedule.lastTaskId) {
                // opens the execution in the Monitor's own detail view (its address is /skail#<id>)
                const link = document.createElement('a');
                link.href = '#' + encodeURIComponent(schedule.lastTaskId);
                link.textContent = schedule.lastTaskId;
                last.append(link);
            }
            row.append(cell(schedule.function), cell(disabled ? 'disabled' : schedule.cron), cell(schedule.zone),
                cell(when(schedule.nextTick)), last,
                cell((schedule.version || '') + (schedule.declaredHere ? '' : ' (not by this runtime)')));
            body.append(row);
        }
        view.hidden = page.items.length === 0;
    }

    document.addEventListener('DOMContentLoaded', () => {
        const list = document.getElementById('list-view');
        if (!list) {
            return;
        }
        const view = section();
        list.prepend(view);
        const refresh = () => load(view).catch(() => { /* the list shows what went wrong */ });
        refresh();
        setInterval(() => {
            if (!list.hidden) {
                refresh();
            }
        }, 10000);
    });
})();
