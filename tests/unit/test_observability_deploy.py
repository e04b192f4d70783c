"""The observability files of deploy/ agree with the code: every metric an alert rule or a
dashboard panel names is defined, no metric has a label that could carry a room or player id,
the compose profile's images are pinned and its files exist, and every Kubernetes workload is
scraped on its metrics port."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from prometheus_client import REGISTRY

import hand_auth.metrics  # noqa: F401  (defines its metrics)
import hand_bot.metrics  # noqa: F401
import hand_common.readiness  # noqa: F401
import hand_common.rpc_metrics  # noqa: F401
import hand_infra.kafka_metrics  # noqa: F401
import hand_ledger.metrics  # noqa: F401
import hand_room.metrics  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "dashboards" / "hand.json"
OPERATIONS = ROOT / "docs" / "operations.md"
METRIC = re.compile(r"\bhand_[a-z0-9_]+")
#: Every label a Hand metric may have: small fixed sets of values, never an id.
LABELS = {"service", "method", "transport", "code", "error_code", "group", "topic", "partition", "kind",
          "path", "audience", "reason", "preset", "finish", "origin", "level", "outcome", "account", "check", "generation"}
#: What the issue asks the alerts to cover, as a word of each rule's name.
ALERTS_WANTED = ("ConsumerLag", "ActCommit", "ErrorRatio", "BrokerUnreachable", "OutboxBacklog",
                 "LedgerBehind", "WithoutPartitions", "BotTakeovers")


def _defined() -> set[str]:
    names = set()
    for collector in list(REGISTRY._collector_to_names):  # every sample name, suffixes included
        names.update(REGISTRY._collector_to_names[collector])
    return {n for n in names if n.startswith("hand_")}


def _rules() -> list[dict]:
    return [rule for group in yaml.safe_load(ALERTS.read_text())["groups"] for rule in group["rules"]]


def test_every_alert_rule_names_metrics_the_code_defines() -> None:
    defined = _defined()
    for rule in _rules():
        named = set(METRIC.findall(rule["expr"]))
        assert named, rule["alert"]
        assert named <= defined, (rule["alert"], sorted(named - defined))


def test_the_alert_rules_cover_what_on_call_needs_and_link_their_runbook() -> None:
    rules = _rules()
    names = [r["alert"] for r in rules]
    assert len(names) == len(set(names))
    for wanted in ALERTS_WANTED:
        assert any(wanted in name for name in names), wanted
    anchors = {"#" + re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
               for h in re.findall(r"^#+ (.+)$", OPERATIONS.read_text(), re.M)}
    for rule in rules:
        assert rule["labels"]["severity"] in {"page", "warning"}, rule["alert"]
        assert {"summary", "runbook"} <= set(rule["annotations"]), rule["alert"]
        assert rule["annotations"]["runbook"].removeprefix("docs/operations.md") in anchors, rule["alert"]


def test_the_dashboard_queries_defined_metrics_from_a_provisioned_datasource() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    sources = yaml.safe_load((ROOT / "deploy/grafana/provisioning/datasources/datasources.yml").read_text())
    uids = {d["uid"] for d in sources["datasources"]}
    defined = _defined()
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids)) and dashboard["uid"] and dashboard["title"]
    for panel in dashboard["panels"]:
        assert panel["datasource"]["uid"] in uids and panel["targets"], panel["title"]
        assert {"h", "w", "x", "y"} <= set(panel["gridPos"]), panel["title"]
        for target in panel["targets"]:
            named = set(METRIC.findall(target["expr"]))
            assert named and named <= defined, (panel["title"], sorted(named - defined))


def test_no_metric_has_a_label_that_could_carry_an_id() -> None:
    for metric in REGISTRY.collect():
        if metric.name.startswith("hand_"):
            for sample in metric.samples:
                assert set(sample.labels) - {"le"} <= LABELS, (metric.name, sample.labels)
    families = {m.name for m in REGISTRY.collect() if m.name.startswith("hand_")}
    for family in families:
        assert re.fullmatch(r"hand_[a-z0-9_]+", family), family


def test_the_observability_profile_is_pinned_and_mounts_files_that_exist() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    profile = {n: s for n, s in services.items() if "observability" in s.get("profiles", ())}
    assert set(profile) == {"prometheus", "grafana", "jaeger"}
    for name, service in profile.items():
        tag = service["image"].rpartition(":")[2]
        assert re.fullmatch(r"v?\d+\.\d+\.\d+", tag), (name, service["image"])
        for volume in service.get("volumes", ()):
            assert (ROOT / volume.split(":")[0]).exists(), (name, volume)
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    scraped = set(config["scrape_configs"][0]["dns_sd_configs"][0]["names"])
    stack = {n for n, s in services.items() if "observability" not in s.get("profiles", ())
             and "hand_" in " ".join(s.get("command", []))}
    assert scraped == stack
    for name in stack:
        env = services[name]["environment"]
        assert any(k.endswith("_METRICS_PORT") and v == "9090" for k, v in env.items()), name


def test_every_kubernetes_workload_is_scraped_on_its_metrics_port() -> None:
    for path in sorted((ROOT / "deploy" / "k8s").glob("*-service.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if not document or document["kind"] != "Deployment":
                continue
            template = document["spec"]["template"]
            notes = template["metadata"].get("annotations", {})
            if "hand-backend" not in template["spec"]["containers"][0]["image"]:
                continue
            assert notes.get("prometheus.io/scrape") == "true", path.name
            ports = {p["name"]: p["containerPort"] for p in template["spec"]["containers"][0]["ports"]}
            assert str(ports["metrics"]) == notes["prometheus.io/port"], path.name
