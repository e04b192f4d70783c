"""TLS on the gRPC servers (server certificate, and mutual TLS) and the Kafka clients'
TLS/SASL arguments, configured only through the registered environment variables."""

from __future__ import annotations

import datetime as dt
import ipaddress
import ssl
from pathlib import Path

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from hand.v1 import rules_service_pb2 as pb
from hand.v1 import rules_service_pb2_grpc as pb_grpc
from hand_common.env import ConfigError
from hand_common.serving import channel_credentials
from hand_infra.settings import kafka_settings
from hand_rules.server import RulesServer
from hand_rules.settings import RulesConfig


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _write(path: Path, key, cert) -> tuple[str, str]:
    key_path, cert_path = path.with_suffix(".key"), path.with_suffix(".pem")
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return str(cert_path), str(key_path)


def make_pki(tmp: Path) -> dict[str, str]:
    """A CA, a server certificate for 127.0.0.1/localhost and a client certificate."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(_name("hand test CA")).issuer_name(_name("hand test CA"))
          .public_key(ca_key.public_key()).serial_number(1).not_valid_before(now - dt.timedelta(hours=1))
          .not_valid_after(now + dt.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    out = {"ca": _write(tmp / "ca", ca_key, ca)[0]}
    for who, san in (("server", [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                     ("client", [x509.DNSName("hand-room")])):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder().subject_name(_name(f"hand-{who}")).issuer_name(ca.subject)
                .public_key(key.public_key()).serial_number(2 if who == "server" else 3)
                .not_valid_before(now - dt.timedelta(hours=1)).not_valid_after(now + dt.timedelta(days=1))
                .add_extension(x509.SubjectAlternativeName(san), critical=False).sign(ca_key, hashes.SHA256()))
        out[f"{who}_cert"], out[f"{who}_key"] = _write(tmp / who, key, cert)
    return out


async def _echo(target: str, credentials: grpc.ChannelCredentials | None) -> bytes:
    channel = (grpc.aio.secure_channel(target, credentials) if credentials is not None
               else grpc.aio.insecure_channel(target))
    async with channel:
        reply = await pb_grpc.RulesServiceStub(channel).Echo(pb.EchoRequest(payload=b"hi"), timeout=5)
    return reply.payload


@pytest.mark.parametrize("mutual", [False, True], ids=["tls", "mtls"])
async def test_a_server_with_a_certificate_speaks_only_tls(tmp_path: Path, mutual: bool) -> None:
    pki = make_pki(tmp_path)
    env = {"HAND_RULES_PORT": "0", "HAND_TLS_CERT_FILE": pki["server_cert"],
           "HAND_TLS_KEY_FILE": pki["server_key"]}
    if mutual:
        env["HAND_TLS_CLIENT_CA_FILE"] = pki["ca"]
    server = RulesServer(RulesConfig.from_env(env).server)
    await server.start()
    try:
        target = f"127.0.0.1:{server.port}"
        client = {"HAND_TLS_CA_FILE": pki["ca"]}
        with pytest.raises(grpc.aio.AioRpcError):
            await _echo(target, None)  # plaintext is refused
        if mutual:
            with pytest.raises(grpc.aio.AioRpcError):
                await _echo(target, channel_credentials(client))  # no client certificate
            client |= {"HAND_TLS_CERT_FILE": pki["client_cert"], "HAND_TLS_KEY_FILE": pki["client_key"]}
        assert await _echo(target, channel_credentials(client)) == b"hi"
    finally:
        await server.stop(0)


def test_half_a_tls_configuration_stops_the_service_at_start_up() -> None:
    with pytest.raises(ConfigError, match="HAND_TLS_KEY_FILE"):
        RulesConfig.from_env({"HAND_TLS_CERT_FILE": "/x.pem"})
    with pytest.raises(ConfigError, match="HAND_TLS_CLIENT_CA_FILE"):
        RulesConfig.from_env({"HAND_TLS_CLIENT_CA_FILE": "/ca.pem"})
    assert channel_credentials({}) is None


def test_kafka_clients_get_tls_and_sasl_from_the_environment(tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    plain = kafka_settings({"KAFKA_BOOTSTRAP_SERVERS": "k:9093"})
    assert "security_protocol" not in plain.producer_kwargs()
    secure = kafka_settings({"KAFKA_BOOTSTRAP_SERVERS": "k:9093", "HAND_KAFKA_SECURITY_PROTOCOL": "sasl_ssl",
                             "HAND_KAFKA_CA_FILE": pki["ca"], "HAND_KAFKA_SASL_USERNAME": "hand-ledger",
                             "HAND_KAFKA_SASL_PASSWORD": "s3cret"})
    for kwargs in (secure.producer_kwargs(), secure.consumer_kwargs("g"), secure.admin_kwargs()):
        assert kwargs["security_protocol"] == "SASL_SSL" and kwargs["sasl_mechanism"] == "SCRAM-SHA-512"
        assert kwargs["sasl_plain_username"] == "hand-ledger"
        assert isinstance(kwargs["ssl_context"], ssl.SSLContext)
        assert kwargs["ssl_context"].verify_mode == ssl.CERT_REQUIRED
    assert "s3cret" not in repr(secure)
    mtls = kafka_settings({"HAND_KAFKA_SECURITY_PROTOCOL": "SSL", "HAND_KAFKA_CA_FILE": pki["ca"],
                           "HAND_KAFKA_CERT_FILE": pki["client_cert"], "HAND_KAFKA_KEY_FILE": pki["client_key"]})
    assert mtls.security.ssl_context().verify_mode == ssl.CERT_REQUIRED
    with pytest.raises(ValueError, match="HAND_KAFKA_SASL_USERNAME"):
        kafka_settings({"HAND_KAFKA_SECURITY_PROTOCOL": "SASL_SSL"})
    with pytest.raises(ValueError, match="HAND_KAFKA_SECURITY_PROTOCOL"):
        kafka_settings({"HAND_KAFKA_SECURITY_PROTOCOL": "SSLv3"})
