"""Prometheus's own checker agrees with deploy/: the alert rules parse and pass their unit tests
(deploy/prometheus/alerts_test.yml: each alert quiet before its ``for:``, firing after, with the
summary on-call reads), the scrape configuration loads, and every dashboard query is valid PromQL.
promtool is Debian's (``make promtool`` unpacks it into .tools/, no root and no service)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS = ROOT / "deploy" / "prometheus"
DASHBOARD = ROOT / "deploy" / "grafana" / "dashboards" / "hand.json"
PROMTOOL = Path(os.environ.get("PROMTOOL", ROOT / ".tools" / "prometheus" / "usr" / "bin" / "promtool"))


@pytest.fixture(scope="module")
def promtool():
    assert os.access(PROMTOOL, os.X_OK), f"{PROMTOOL} is missing: run `make promtool` (Debian's prometheus package)"

    def run(*args: str, cwd: Path = PROMETHEUS) -> str:
        done = subprocess.run([str(PROMTOOL), *args], cwd=cwd, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout + done.stderr
    return run


def test_the_alert_rules_pass_promtool_and_their_unit_tests(promtool) -> None:
    assert "SUCCESS" in promtool("check", "rules", "alerts.yml")
    assert "SUCCESS" in promtool("test", "rules", "alerts_test.yml")


def test_every_alert_has_a_unit_test_that_sees_it_quiet_and_firing() -> None:
    alerts = {r["alert"] for g in yaml.safe_load((PROMETHEUS / "alerts.yml").read_text())["groups"] for r in g["rules"]}
    cases = [case for test in yaml.safe_load((PROMETHEUS / "alerts_test.yml").read_text())["tests"]
             for case in test["alert_rule_test"]]
    for alert in alerts:
        mine = [c for c in cases if c["alertname"] == alert]
        assert any(not c["exp_alerts"] for c in mine) and any(c["exp_alerts"] for c in mine), alert


def test_the_scrape_configuration_loads(promtool, tmp_path: Path) -> None:
    config = yaml.safe_load((PROMETHEUS / "prometheus.yml").read_text())
    config["rule_files"] = [str(PROMETHEUS / "alerts.yml")]  # mounted at /etc/prometheus in compose
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    assert "SUCCESS" in promtool("check", "config", "prometheus.yml", cwd=tmp_path)


def test_every_dashboard_query_is_valid_promql(promtool, tmp_path: Path) -> None:
    panels = json.loads(DASHBOARD.read_text())["panels"]
    rules = [{"record": f"dashboard:panel_{p['id']}_{i}", "expr": t["expr"]}
             for p in panels for i, t in enumerate(p["targets"])]
    assert rules
    (tmp_path / "dashboard_rules.yml").write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    assert f"SUCCESS: {len(rules)} rules found" in promtool("check", "rules", "dashboard_rules.yml", cwd=tmp_path)
