"""TLS and SASL for every Kafka client: what ``KafkaSettings`` adds to aiokafka's arguments.

``HAND_KAFKA_SECURITY_PROTOCOL``: ``PLAINTEXT`` (default: the embedded broker,
a private network), ``SSL`` (TLS; with a client certificate, mutual TLS and
the certificate's subject is the principal) or ``SASL_SSL`` (TLS plus a
SASL user, ``SCRAM-SHA-512`` by default: the principal ``User:<name>`` that
the ACLs of deploy/kafka/acls.sh grant). Paths name PEM files mounted from a
Secret; the SASL password is a secret and never logged (``repr=False``).
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from hand_common.env import EnvReader, EnvVar, read_settings, setting

__all__ = ["PROTOCOLS", "KafkaSecurity", "kafka_security"]

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_SSL")
MECHANISMS = ("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN")

SECURITY_PROTOCOL = EnvVar(
    "HAND_KAFKA_SECURITY_PROTOCOL", "PLAINTEXT",
    "PLAINTEXT, SSL (TLS, optionally mutual) or SASL_SSL to the brokers"
)
CA_FILE = EnvVar("HAND_KAFKA_CA_FILE", "", "PEM CA bundle the brokers' certificates are checked against")
CERT_FILE = EnvVar("HAND_KAFKA_CERT_FILE", "", "PEM client certificate for mutual TLS to the brokers")
KEY_FILE = EnvVar("HAND_KAFKA_KEY_FILE", "", "PEM private key of HAND_KAFKA_CERT_FILE (a Secret)")
SASL_MECHANISM = EnvVar(
    "HAND_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512",
    "SASL mechanism with SASL_SSL: SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN"
)
SASL_USERNAME = EnvVar(
    "HAND_KAFKA_SASL_USERNAME", "",
    "SASL user (the Kafka principal User:<name> of the ACLs)"
)
SASL_PASSWORD = EnvVar("HAND_KAFKA_SASL_PASSWORD", "", "SECRET: the SASL user's password")


@dataclass(frozen=True)
class KafkaSecurity:
    protocol: str = setting(SECURITY_PROTOCOL)
    ca_file: str = setting(CA_FILE)
    cert_file: str = setting(CERT_FILE)
    key_file: str = setting(KEY_FILE)
    sasl_mechanism: str = setting(SASL_MECHANISM)
    sasl_username: str = setting(SASL_USERNAME)
    sasl_password: str = setting(SASL_PASSWORD, repr=False)  # a secret: never in a log

    def ssl_context(self) -> ssl.SSLContext:
        """Server certificates verified (against ``ca_file`` or the system roots), TLS 1.2+."""
        context = ssl.create_default_context(cafile=self.ca_file or None)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        if self.cert_file:
            context.load_cert_chain(self.cert_file, self.key_file or None)
        return context

    def kwargs(self) -> dict[str, Any]:
        """aiokafka arguments; none at all for PLAINTEXT (the clients' defaults)."""
        if self.protocol == "PLAINTEXT":
            return {}
        out: dict[str, Any] = {"security_protocol": self.protocol, "ssl_context": self.ssl_context()}
        if self.protocol == "SASL_SSL":
            out.update(sasl_mechanism=self.sasl_mechanism, sasl_plain_username=self.sasl_username,
                       sasl_plain_password=self.sasl_password)
        return out


def kafka_security(env: Mapping[str, str] | EnvReader | None = None) -> KafkaSecurity:
    """Read the ``HAND_KAFKA_*`` security variables (declared above); ``ValueError`` names a
    bad one."""
    security = read_settings(KafkaSecurity, env if isinstance(env, EnvReader) else EnvReader(env))
    protocol, mechanism = security.protocol.upper(), security.sasl_mechanism.upper()
    if protocol not in PROTOCOLS:
        raise ValueError(f"HAND_KAFKA_SECURITY_PROTOCOL must be one of {', '.join(PROTOCOLS)}")
    if mechanism not in MECHANISMS:
        raise ValueError(f"HAND_KAFKA_SASL_MECHANISM must be one of {', '.join(MECHANISMS)}")
    security = replace(security, protocol=protocol, sasl_mechanism=mechanism)
    if protocol == "SASL_SSL" and not (security.sasl_username and security.sasl_password):
        raise ValueError("HAND_KAFKA_SECURITY_PROTOCOL=SASL_SSL needs HAND_KAFKA_SASL_USERNAME "
                         "and HAND_KAFKA_SASL_PASSWORD")
    return security
