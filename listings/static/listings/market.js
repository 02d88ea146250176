// Chart.js configuration for the "Ринок" dashboard; the data comes from the page's
// json_script block (listings.admin_market), never from another request.
(function () {
  "use strict";
  const source = document.getElementById("market-data");
  if (!source || typeof Chart === "undefined") {
    return;
  }
  const data = JSON.parse(source.textContent);
  const accent = "#417690";
  const quiet = "#9bb7c7";
  const whole = new Intl.NumberFormat("uk-UA", { maximumFractionDigits: 0 });
  const fine = new Intl.NumberFormat("uk-UA", { maximumFractionDigits: 2 });
  // Whole units, but a rent's price per m² (a few dollars) keeps its tick steps apart:
  // 7.5 is not written 8 next to an 8.
  const money = (value) => (Math.abs(value) < 100 ? fine : whole).format(value);
  const common = { responsive: true, maintainAspectRatio: false, animation: false };

  function draw(id, config) {
    const canvas = document.getElementById(id);
    if (canvas) {
      canvas.chart = new Chart(canvas, config);
    }
  }

  draw("chart-by-place", {
    type: "bar",
    data: {
      labels: data.by_place.labels,
      datasets: [{ label: "медіана за м²", data: data.by_place.values, backgroundColor: accent }],
    },
    options: {
      ...common,
      indexAxis: "y",
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            afterLabel: (item) => `оголошень: ${data.by_place.counts[item.dataIndex]}`,
          },
        },
      },
      scales: { x: { ticks: { callback: money } } },
    },
  });

  draw("chart-trend", {
    data: {
      labels: data.trend.labels,
      datasets: [
        {
          type: "line",
          label: "медіана за м²",
          data: data.trend.values,
          borderColor: accent,
          backgroundColor: accent,
          yAxisID: "price",
          spanGaps: false,
          pointRadius: 4,
          pointBackgroundColor: data.trend.low_sample.map((low) => (low ? "#fff" : accent)),
        },
        {
          type: "bar",
          label: "оголошень",
          data: data.trend.counts,
          backgroundColor: quiet,
          yAxisID: "count",
        },
      ],
    },
    options: {
      ...common,
      scales: {
        price: { position: "left", ticks: { callback: money } },
        count: { position: "right", grid: { drawOnChartArea: false } },
      },
    },
  });

  draw("chart-distribution", {
    type: "bar",
    data: {
      labels: data.distribution.labels,
      datasets: [{ label: "оголошень", data: data.distribution.values, backgroundColor: accent }],
    },
    options: { ...common, plugins: { legend: { display: false } } },
  });
})();
