import Report

/// `/`: the live page. One self-contained document served from the binary, with no CDN and no
/// font from elsewhere (the machines devsim runs on often have no internet), read at a glance:
/// whether the run is live, reconnecting or finished; the stage or capacity step under way and
/// its target; connections up and the rates as tiles; the published rate against the schedule,
/// acknowledgement latency and lateness (p50, p99) since the run began as charts with axes,
/// units and legends; the device groups with their figures, what the broker refused them by
/// reason, and pause/resume buttons; and the subscriber groups with what they received, all
/// from `/api/events`. The charts are SVG, so what they say is in the page's text.
enum LivePage {
    /// The page for devsim `version`; with `testHand`, the browser test's hand, left out
    /// otherwise: `#click=pause:NAME` presses that button once two status events have come,
    /// `#first` stops listening after the first, so the page shows what that one said.
    static func html(version: String, testHand: Bool) -> String {
        page.replacing("/*TEST HAND*/", with: testHand ? hand : "").replacing("<!--VERSION-->", with: escaped(version))
    }

    private static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }

    private static let hand = """
        const wanted = decodeURIComponent(location.hash).match(/^#click=(pause|resume):(.+)$/);
        if (wanted && events === 2) {
          document.querySelector(`button[data-command="${wanted[1]}"][data-group="${CSS.escape(wanted[2])}"]`).click();
        }
        if (location.hash === "#first") source.close();
        """

    private static let page = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>devsim</title>
        <style>
          body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; background: #fafafa; }
          header { display: flex; align-items: baseline; gap: 1em; flex-wrap: wrap; margin-bottom: .8em; }
          h1 { font-size: 1.3em; margin: 0; }
          h1 small { font-weight: normal; color: #666; font-size: .7em; }
          .state { padding: .15em .6em; border-radius: 1em; background: #eee; }
          .state[data-state="live"] { background: #dcf5e3; color: #135c2b; }
          .state[data-state="reconnecting"] { background: #fde7d4; color: #8a3b00; }
          .state[data-state="finished"] { background: #dde7f7; color: #173f7a; font-weight: 600; }
          #position { margin: 0 0 1em; font-size: 1.05em; }
          #position:empty { display: none; }
          .figures { display: flex; gap: 2em; flex-wrap: wrap; margin-bottom: 1em; }
          .figure { color: #555; }
          .figure b { display: block; font-size: 1.6em; color: #222; font-variant-numeric: tabular-nums; }
          .figure[hidden] { display: none; }
          .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(360px, 1fr)); gap: 1em; }
          figure { margin: 0; background: #fff; border: 1px solid #ddd; padding: .5em; }
          figcaption { font-weight: 600; }
          .legend { list-style: none; margin: .2em 0; padding: 0; display: flex; gap: 1.2em; flex-wrap: wrap; font-size: .9em; }
          .legend .swatch { display: inline-block; width: 1.4em; height: 0; border-top: 3px solid; vertical-align: middle; margin-right: .3em; }
          .legend .swatch.dashed { border-top-style: dashed; }
          .legend b { font-weight: 600; margin-left: .3em; font-variant-numeric: tabular-nums; }
          svg { width: 100%; height: auto; display: block; }
          svg text { font: 12px system-ui, sans-serif; fill: #555; }
          svg .grid line { stroke: #eee; }
          svg .axis line, svg .axis path { stroke: #999; }
          svg .axis-title { fill: #333; }
          svg .empty { font-size: 14px; fill: #777; }
          table { border-collapse: collapse; margin-top: 1em; background: #fff; }
          th, td { border: 1px solid #ddd; padding: .3em .6em; text-align: right; font-variant-numeric: tabular-nums; }
          th:first-child, td:first-child { text-align: left; }
          td.payload { font-family: monospace; text-align: left; max-width: 40em; overflow-wrap: anywhere; }
          td.refused small { display: block; color: #8a1c1c; white-space: nowrap; }
          table[hidden] { display: none; }
        </style>
        </head>
        <body>
        <header>
          <h1>devsim <small>version <!--VERSION--></small></h1>
          <span id="state" class="state" data-state="connecting">connecting…</span>
        </header>
        <p id="position"></p>
        <div class="figures">
          <div class="figure">connections up<b id="connections">–</b></div>
          <div class="figure">published, last second<b id="rate">–</b></div>
          <div class="figure">scheduled, last second<b id="scheduled">–</b></div>
          <div class="figure" id="targetFigure" hidden>target now<b id="target">–</b></div>
          <div class="figure">published<b id="published">–</b></div>
          <div class="figure">acknowledged<b id="acknowledged">–</b></div>
          <div class="figure" id="refusedFigure" hidden>refused by the broker<b id="refused">–</b></div>
          <div class="figure">since the run began<b id="elapsed">–</b></div>
        </div>
        <div class="charts">
          <figure id="rateChart"><figcaption>Messages a second</figcaption><ul class="legend"></ul><svg viewBox="0 0 460 240" role="img"></svg></figure>
          <figure id="latencyChart"><figcaption>Acknowledgement latency (QoS 1 and 2)</figcaption><ul class="legend"></ul><svg viewBox="0 0 460 240" role="img"></svg></figure>
          <figure id="latenessChart"><figcaption>Lateness: how late ticks were published</figcaption><ul class="legend"></ul><svg viewBox="0 0 460 240" role="img"></svg></figure>
        </div>
        <table id="groups"><thead><tr><th>device group</th><th>connections up</th><th>published</th><th>acknowledged</th>
          <th>refused</th><th>paused</th><th>skipped offline</th><th>failed</th><th></th><th>latest payload</th></tr></thead>
          <tbody></tbody></table>
        <table id="subscribers" hidden><thead><tr><th>subscriber group</th><th>subscribed</th><th>received</th>
          <th>received / s, on average</th><th>latency p50</th><th>latency p99</th><th>duplicates</th><th>out of order</th>
          <th>gaps</th></tr></thead><tbody></tbody></table>
        <script>
        "use strict";
        // A point is [seconds since the run began, published/s, scheduled/s, ack p50, p99,
        // lateness p50, p99], times in ms, null where nothing was measured (EventHub).
        let points = [];
        let events = 0;
        let finished = false;
        const charts = [
          { id: "rateChart", format: perSecond, empty: "nothing scheduled yet", lines: [
            { name: "published", index: 1, colour: "#1f6feb" },
            { name: "scheduled", index: 2, colour: "#d2691e", dashed: true } ] },
          { id: "latencyChart", format: duration, empty: "no acknowledgements yet: QoS 0 messages have none", lines: [
            { name: "p50", index: 3, colour: "#2a9d4b" },
            { name: "p99", index: 4, colour: "#c0392b" } ] },
          { id: "latenessChart", format: duration, empty: "no ticks yet", lines: [
            { name: "p50", index: 5, colour: "#2a9d4b" },
            { name: "p99", index: 6, colour: "#c0392b" } ] },
        ];
        // The SVG namespace, from the page's own charts: the page names no address elsewhere.
        const svgNS = document.querySelector("svg").namespaceURI;
        const whole = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
        function number(value, decimals) {
          return new Intl.NumberFormat("en-US", { maximumFractionDigits: decimals }).format(value);
        }
        // 1,234 /s; 12.5 /s; 0.25 /s.
        function perSecond(value) {
          return number(value, value >= 100 ? 0 : value >= 10 ? 1 : 2) + " /s";
        }
        // 850 µs reads worse than 0.85 ms beside 12 ms: ms below a second, s above.
        function duration(ms) {
          if (ms >= 1000) return number(ms / 1000, ms >= 10000 ? 1 : 2) + " s";
          return number(ms, ms >= 100 ? 0 : ms >= 1 ? 1 : ms >= 0.1 ? 2 : ms >= 0.01 ? 3 : 4) + " ms";
        }
        // m:ss, or h:mm:ss past an hour.
        function clock(seconds) {
          const s = Math.round(seconds), h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60), r = s % 60;
          const pad = n => String(n).padStart(2, "0");
          return h > 0 ? h + ":" + pad(m) + ":" + pad(r) : m + ":" + pad(r);
        }
        // The smallest of 1, 2, 2.5, 5 times a power of ten that makes at most `count` steps of `top`.
        function niceStep(top, count) {
          const raw = top / count, power = Math.pow(10, Math.floor(Math.log10(raw)));
          return [1, 2, 2.5, 5, 10].map(f => f * power).find(step => step >= raw);
        }
        function timeStep(span) {
          const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
          return steps.find(step => span / step <= 6) ?? Math.ceil(span / 6 / 86400) * 86400;
        }
        function element(name, attributes, text) {
          const node = document.createElementNS(svgNS, name);
          for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
          if (text !== undefined) node.textContent = text;
          return node;
        }
        function draw(chart) {
          const figure = document.getElementById(chart.id), svg = figure.querySelector("svg");
          const width = 460, height = 240, left = 70, right = 22, top = 12, bottom = 42;
          const plotWidth = width - left - right, plotHeight = height - top - bottom;
          const span = Math.max(10, points.length ? points[points.length - 1][0] : 0);
          const values = points.flatMap(point => chart.lines.map(line => point[line.index])).filter(Number.isFinite);
          const x = t => left + t / span * plotWidth;
          const parts = [];
          const grid = element("g", { class: "grid" }), xAxis = element("g", { class: "axis x" }), yAxis = element("g", { class: "axis y" });
          const step = timeStep(span);
          for (let t = 0; t <= span + 1e-9; t += step) {
            xAxis.append(element("line", { x1: x(t), x2: x(t), y1: top + plotHeight, y2: top + plotHeight + 4 }));
            xAxis.append(element("text", { x: x(t), y: top + plotHeight + 16, "text-anchor": "middle" }, clock(t)));
          }
          xAxis.append(element("line", { x1: left, x2: left + plotWidth, y1: top + plotHeight, y2: top + plotHeight }));
          xAxis.append(element("text", { class: "axis-title", x: left + plotWidth / 2, y: height - 6, "text-anchor": "middle" },
            "time since the run began (m:ss)"));
          parts.push(grid, xAxis, yAxis);
          const highest = Math.max(0, ...values);
          figure.dataset.points = String(points.length);
          if (!(highest > 0)) {
            figure.dataset.empty = "true";
            parts.push(element("text", { class: "empty", x: left + plotWidth / 2, y: top + plotHeight / 2, "text-anchor": "middle" },
              values.length ? "all " + chart.format(0) + " so far" : chart.empty));
          } else {
            delete figure.dataset.empty;
            const yStep = niceStep(highest, 4), yTop = Math.ceil(highest / yStep - 1e-9) * yStep;
            const y = value => top + plotHeight - value / yTop * plotHeight;
            for (let value = 0; value <= yTop + yStep / 2; value += yStep) {
              grid.append(element("line", { x1: left, x2: left + plotWidth, y1: y(value), y2: y(value) }));
              yAxis.append(element("text", { x: left - 6, y: y(value) + 4, "text-anchor": "end" }, chart.format(value)));
            }
            yAxis.append(element("line", { x1: left, x2: left, y1: top, y2: top + plotHeight }));
            for (const line of chart.lines) {
              let path = "", pen = "M";
              for (const point of points) {
                const value = point[line.index];
                // A stretch with nothing measured (no acknowledgement in it) is bridged.
                if (!Number.isFinite(value)) continue;
                path += pen + x(point[0]).toFixed(1) + " " + y(value).toFixed(1) + " ";
                pen = "L";
              }
              const attributes = { d: path.trim(), fill: "none", stroke: line.colour, "stroke-width": 2, "data-line": line.name };
              if (line.dashed) attributes["stroke-dasharray"] = "6 4";
              if (path) parts.push(element("path", attributes));
              const last = points.findLast(point => Number.isFinite(point[line.index]));
              if (last) parts.push(element("circle", { cx: x(last[0]), cy: y(last[line.index]), r: 3, fill: line.colour }));
            }
          }
          svg.replaceChildren(...parts);
          const legend = figure.querySelector(".legend");
          legend.replaceChildren(...chart.lines.map(line => {
            const item = document.createElement("li");
            item.dataset.line = line.name;
            const swatch = document.createElement("span");
            swatch.className = "swatch" + (line.dashed ? " dashed" : "");
            swatch.style.borderColor = line.colour;
            const latest = points.findLast(point => Number.isFinite(point[line.index]));
            const value = document.createElement("b");
            value.textContent = latest ? chart.format(latest[line.index]) : "–";
            item.append(swatch, line.name, value);
            return item;
          }));
        }
        function drawCharts() { charts.forEach(draw); }
        function setState(state, text) {
          const node = document.getElementById("state");
          node.dataset.state = state;
          node.textContent = text;
        }
        function position(position) {
          const parts = [];
          for (const stage of position?.stages ?? []) {
            const whose = stage.group ? "group " + stage.group + ": " : "";
            parts.push(stage.stage === null
              ? whose + "after the last of " + stage.count + " stages" + (stage.target ? " (" + stage.target + " holds)" : "")
              : whose + "stage " + stage.stage + " of " + stage.count + (stage.target ? " (" + stage.target + ")" : "")
                + ", " + clock(stage.seconds) + " of " + clock(stage.plannedSeconds));
          }
          if (position?.step) {
            const step = position.step;
            parts.push("capacity step " + step.step + " (x" + number(step.multiplier, 3) + " the scenarios' rates): " + step.phase);
          }
          if (Number.isFinite(position?.targetPerSecond)) parts.push("target " + perSecond(position.targetPerSecond));
          document.getElementById("position").textContent = parts.join(" · ");
          document.getElementById("targetFigure").hidden = !Number.isFinite(position?.targetPerSecond);
          if (Number.isFinite(position?.targetPerSecond)) document.getElementById("target").textContent = perSecond(position.targetPerSecond);
        }
        function command(group, verb) {
          fetch("api/groups/" + encodeURIComponent(group) + "/" + verb, { method: "POST" })
            .then(response => { if (!response.ok) throw new Error(verb + " " + group + ": " + response.status); });
        }
        function cells(row, values) {
          for (const value of values) {
            const cell = document.createElement("td");
            cell.textContent = value;
            row.append(cell);
          }
        }
        // "Not authorized (0x87)", as the report and the log say a reason.
        function reason(refusal) {
          return refusal.reason + " (0x" + refusal.code.toString(16).toUpperCase().padStart(2, "0") + ")";
        }
        // The count, and under it what the broker refused for: each reason, with its count when
        // there are several.
        function refusedCell(group) {
          const cell = document.createElement("td");
          cell.className = "refused";
          cell.textContent = whole.format(group.refused);
          const refusals = group.refusals ?? [];
          for (const refusal of refusals) {
            const line = document.createElement("small");
            line.textContent = reason(refusal) + (refusals.length > 1 ? ": " + whole.format(refusal.count) : "");
            cell.append(line);
          }
          return cell;
        }
        function groupsTable(groups) {
          const body = document.querySelector("#groups tbody");
          body.replaceChildren(...groups.map(group => {
            const row = document.createElement("tr");
            row.dataset.group = group.name;
            cells(row, [group.name, ...[group.connectionsUp, group.published, group.acknowledged].map(value => whole.format(value))]);
            row.append(refusedCell(group));
            cells(row, [group.paused, group.skippedOffline, group.failed].map(value => whole.format(value)));
            const cell = document.createElement("td");
            for (const verb of ["pause", "resume"]) {
              const button = document.createElement("button");
              button.textContent = verb;
              button.dataset.group = group.name;
              button.dataset.command = verb;
              button.disabled = finished;
              button.addEventListener("click", () => command(group.name, verb));
              cell.append(button);
            }
            row.append(cell);
            const payload = document.createElement("td");
            payload.className = "payload";
            payload.textContent = group.latestPayload ?? "";
            row.append(payload);
            return row;
          }));
        }
        function subscribersTable(groups) {
          const table = document.getElementById("subscribers");
          table.hidden = groups.length === 0;
          table.querySelector("tbody").replaceChildren(...groups.map(group => {
            const row = document.createElement("tr");
            row.dataset.subscriberGroup = group.name;
            cells(row, [
              group.name + (group.shared ? " (shared)" : ""), whole.format(group.subscribed) + " / " + whole.format(group.connections),
              whole.format(group.received), perSecond(group.ratePerSecond), group.latency ? duration(group.latency.p50) : "–",
              group.latency ? duration(group.latency.p99) : "–", whole.format(group.duplicates),
              // A shared group's members read in the order their loop finds them: no order to judge.
              Number.isFinite(group.outOfOrder) ? whole.format(group.outOfOrder) : "–", whole.format(group.gaps)]);
            return row;
          }));
        }
        drawCharts();
        const source = new EventSource("api/events");
        // A page that missed the end (opened or reloaded after devsim exited) stops waiting after
        // a few tries, and says what is likely.
        let failures = 0;
        source.addEventListener("open", () => { failures = 0; setState("live", "live"); });
        source.addEventListener("error", () => {
          if (finished) return;
          failures += 1;
          if (failures < 5) {
            setState("reconnecting", "connection lost: reconnecting…");
          } else {
            source.close();
            setState("reconnecting", "devsim unreachable: the run may have ended");
            document.querySelectorAll("button[data-command]").forEach(button => { button.disabled = true; });
          }
        });
        source.addEventListener("history", message => {
          points = JSON.parse(message.data).points;
          drawCharts();
        });
        source.addEventListener("status", message => {
          const status = JSON.parse(message.data);
          events += 1;
          document.body.dataset.events = String(events);
          if (status.point) points.push(status.point);
          document.getElementById("connections").textContent = whole.format(status.connectionsUp) + " / " + whole.format(status.connections);
          const rate = status.publishedPerSecond, scheduled = status.scheduledPerSecond;
          document.getElementById("rate").textContent = Number.isFinite(rate) ? perSecond(rate) : "–";
          document.getElementById("scheduled").textContent = Number.isFinite(scheduled) ? perSecond(scheduled) : "–";
          document.getElementById("published").textContent = whole.format(status.published);
          document.getElementById("acknowledged").textContent = whole.format(status.acknowledged);
          document.getElementById("refusedFigure").hidden = !(status.refused > 0);
          document.getElementById("refused").textContent = whole.format(status.refused);
          document.getElementById("elapsed").textContent = clock(status.durationSeconds);
          position(status.position);
          drawCharts();
          groupsTable(status.groups);
          subscribersTable(status.subscribers ?? []);
          /*TEST HAND*/
        });
        source.addEventListener("finished", message => {
          const end = JSON.parse(message.data);
          finished = true;
          source.close();
          setState("finished", "run finished (" + end.outcome + ") after " + clock(end.durationSeconds));
          document.getElementById("position").textContent = "";
          document.querySelectorAll("button[data-command]").forEach(button => { button.disabled = true; });
        });
        </script>
        </body>
        </html>
        """
}
