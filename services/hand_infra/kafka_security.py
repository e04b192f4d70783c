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
from dataclasses import dataclass, field
from typing import Any

from hand_common.config import EnvReader

__all__ = ["PROTOCOLS", "KafkaSecurity", "kafka_security"]

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_SSL")
MECHANISMS = ("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN")


@dataclass(frozen=True)
class KafkaSecurity:
    protocol: str = "PLAINTEXT"
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""
    sasl_mechanism: str = "SCRAM-SHA-512"
    sasl_username: str = ""
    sasl_password: str = field(default="", repr=False)

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
    """Read the ``HAND_KAFKA_*`` security variables (through the registry of
    ``hand_common.config``); ``ValueError`` names a bad one."""
    get = (env if isinstance(env, EnvReader) else EnvReader(env)).raw
    protocol = get("HAND_KAFKA_SECURITY_PROTOCOL").upper()
    if protocol not in PROTOCOLS:
        raise ValueError(f"HAND_KAFKA_SECURITY_PROTOCOL must be one of {', '.join(PROTOCOLS)}")
    mechanism = get("HAND_KAFKA_SASL_MECHANISM").upper()
    if mechanism not in MECHANISMS:
        raise ValueError(f"HAND_KAFKA_SASL_MECHANISM must be one of {', '.join(MECHANISMS)}")
    security = KafkaSecurity(protocol, get("HAND_KAFKA_CA_FILE"), get("HAND_KAFKA_CERT_FILE"),
                             get("HAND_KAFKA_KEY_FILE"), mechanism, get("HAND_KAFKA_SASL_USERNAME"),
                             get("HAND_KAFKA_SASL_PASSWORD"))
    if protocol == "SASL_SSL" and not (security.sasl_username and security.sasl_password):
        raise ValueError("HAND_KAFKA_SECURITY_PROTOCOL=SASL_SSL needs HAND_KAFKA_SASL_USERNAME "
                         "and HAND_KAFKA_SASL_PASSWORD")
    return security
