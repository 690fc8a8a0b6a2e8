/// `/`: the live page. One self-contained document served from the binary, with no CDN and no
/// font from elsewhere (the machines devsim runs on often have no internet): connections up, the
/// published rate against the schedule, acknowledgement latency and lateness (p50, p99) over the
/// last five minutes as charts, and the device groups with their figures and pause/resume
/// buttons, all from `/api/events`.
enum LivePage {
    /// The page; with `testHand`, the browser test's hand (`#click=pause:NAME` presses that
    /// button once two status events have come), left out otherwise.
    static func html(testHand: Bool) -> String {
        page.replacing("/*TEST HAND*/", with: testHand ? hand : "")
    }

    private static let hand = """
        const wanted = decodeURIComponent(location.hash).match(/^#click=(pause|resume):(.+)$/);
        if (wanted && events === 2) {
          document.querySelector(`button[data-command="${wanted[1]}"][data-group="${CSS.escape(wanted[2])}"]`).click();
        }
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
          h1 { font-size: 1.3em; margin: 0 0 .5em; }
          .figures { display: flex; gap: 2em; flex-wrap: wrap; margin-bottom: 1em; }
          .figure b { display: block; font-size: 1.6em; }
          .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 1em; }
          figure { margin: 0; background: #fff; border: 1px solid #ddd; padding: .5em; }
          figcaption { font-weight: 600; margin-bottom: .3em; }
          canvas { width: 100%; height: 160px; }
          table { border-collapse: collapse; margin-top: 1em; background: #fff; }
          th, td { border: 1px solid #ddd; padding: .3em .6em; text-align: right; }
          th:first-child, td:first-child { text-align: left; }
          .state { color: #a00; }
          .legend span { margin-right: 1em; }
          td.payload { font-family: monospace; text-align: left; max-width: 40em; overflow-wrap: anywhere; }
        </style>
        </head>
        <body>
        <h1>devsim <span id="state" class="state">connecting…</span></h1>
        <div class="figures">
          <div class="figure">connections up<b id="connections">–</b></div>
          <div class="figure">published / s<b id="rate">–</b></div>
          <div class="figure">scheduled / s<b id="scheduled">–</b></div>
          <div class="figure">acknowledged<b id="acknowledged">–</b></div>
        </div>
        <div class="charts">
          <figure><figcaption>messages / s: published, scheduled</figcaption><canvas id="rateChart"></canvas></figure>
          <figure><figcaption>ack latency ms: p50, p99</figcaption><canvas id="latencyChart"></canvas></figure>
          <figure><figcaption>lateness ms: p50, p99</figcaption><canvas id="latenessChart"></canvas></figure>
        </div>
        <table id="groups"><thead><tr><th>group</th><th>connections up</th><th>published</th><th>acknowledged</th>
          <th>paused</th><th>skipped offline</th><th>failed</th><th></th><th>latest payload</th></tr></thead><tbody></tbody></table>
        <script>
        "use strict";
        const keep = 300; // five minutes of one status a second
        const series = { rate: [[], []], latency: [[], []], lateness: [[], []] };
        const colours = ["#1f6feb", "#d2691e"];
        let events = 0;
        function push(name, values) {
          values.forEach((value, i) => {
            const points = series[name][i];
            points.push(value);
            if (points.length > keep) points.shift();
          });
        }
        function draw(id, lines) {
          const canvas = document.getElementById(id);
          const width = canvas.width = canvas.clientWidth || 320, height = canvas.height = canvas.clientHeight || 160;
          const context = canvas.getContext("2d");
          context.clearRect(0, 0, width, height);
          const top = Math.max(1e-9, ...lines.flat().filter(Number.isFinite));
          lines.forEach((points, i) => {
            context.strokeStyle = colours[i];
            context.beginPath();
            points.forEach((value, x) => {
              const px = (x / Math.max(1, keep - 1)) * width, py = height - 4 - (value / top) * (height - 8);
              x === 0 ? context.moveTo(px, py) : context.lineTo(px, py);
            });
            context.stroke();
          });
          context.fillStyle = "#666";
          context.fillText(top.toPrecision(3), 4, 12);
          canvas.dataset.points = String(lines[0].length);
        }
        function command(group, verb) {
          fetch("api/groups/" + encodeURIComponent(group) + "/" + verb, { method: "POST" })
            .then(response => { if (!response.ok) throw new Error(verb + " " + group + ": " + response.status); });
        }
        function groupsTable(groups) {
          const body = document.querySelector("#groups tbody");
          body.replaceChildren(...groups.map(group => {
            const row = document.createElement("tr");
            row.dataset.group = group.name;
            for (const value of [group.name, group.connectionsUp, group.published, group.acknowledged, group.paused, group.skippedOffline, group.failed]) {
              const cell = document.createElement("td");
              cell.textContent = String(value);
              row.append(cell);
            }
            const cell = document.createElement("td");
            for (const verb of ["pause", "resume"]) {
              const button = document.createElement("button");
              button.textContent = verb;
              button.dataset.group = group.name;
              button.dataset.command = verb;
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
        const source = new EventSource("api/events");
        source.addEventListener("open", () => { document.getElementById("state").textContent = ""; });
        source.addEventListener("error", () => { document.getElementById("state").textContent = "reconnecting…"; });
        source.addEventListener("status", message => {
          const status = JSON.parse(message.data);
          events += 1;
          document.body.dataset.events = String(events);
          document.getElementById("connections").textContent = status.connectionsUp + " / " + status.connections;
          document.getElementById("rate").textContent = (status.publishedPerSecond ?? 0).toFixed(1);
          document.getElementById("scheduled").textContent = (status.scheduledPerSecond ?? 0).toFixed(1);
          document.getElementById("acknowledged").textContent = String(status.acknowledged);
          push("rate", [status.publishedPerSecond ?? 0, status.scheduledPerSecond ?? 0]);
          push("latency", [status.latencyP50Ms ?? 0, status.latencyP99Ms ?? 0]);
          push("lateness", [status.latenessP50Ms ?? 0, status.latenessP99Ms ?? 0]);
          draw("rateChart", series.rate);
          draw("latencyChart", series.latency);
          draw("latenessChart", series.lateness);
          groupsTable(status.groups);
          /*TEST HAND*/
        });
        </script>
        </body>
        </html>
        """
}
