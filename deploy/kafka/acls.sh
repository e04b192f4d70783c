#!/usr/bin/env bash
# Kafka ACLs for the Hand services: one SASL/SCRAM (or mTLS) principal per
# service, each allowed exactly what it does, nothing else (deploy/README.md,
# "Kafka: TLS, principals and ACLs"). Idempotent: run it again after a change.
#
#   BOOTSTRAP=hand-kafka-0.hand-kafka:9093 ADMIN_CONFIG=/etc/kafka/admin.properties \
#     deploy/kafka/acls.sh
#
# The broker must run with an authorizer and deny by default:
#   authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
#   allow.everyone.if.no.acl.found=false
#   super.users=User:hand-admin
set -euo pipefail

BOOTSTRAP="${BOOTSTRAP:?set BOOTSTRAP, e.g. hand-kafka-0.hand-kafka:9093}"
ADMIN_CONFIG="${ADMIN_CONFIG:?set ADMIN_CONFIG: client properties of the admin principal}"
KAFKA_ACLS="${KAFKA_ACLS:-kafka-acls.sh}"

ROOM=User:hand-room      # room service (gateways and owners)
BOT=User:hand-bot        # bot service
LEDGER=User:hand-ledger  # scoring ledger

acl() {  # acl PRINCIPAL OPERATION --topic NAME | --group NAME
  "$KAFKA_ACLS" --bootstrap-server "$BOOTSTRAP" --command-config "$ADMIN_CONFIG" \
    --add --allow-principal "$1" --operation "$2" "${@:3}"
}

# The services create their topics at start-up (hand_infra.topics.ensure_topics).
for topic in hand.room-commands hand.room-replies hand.room-events hand.room-events-public hand.bot-requests; do
  acl "$ROOM" Create --topic "$topic"
  acl "$ROOM" Describe --topic "$topic"
done

# hand.room-commands: room service and bots write, room service reads (group hand-room-owners).
acl "$ROOM" Write --topic hand.room-commands
acl "$ROOM" Read --topic hand.room-commands
acl "$ROOM" Read --group hand-room-owners
acl "$BOT" Write --topic hand.room-commands
acl "$BOT" Describe --topic hand.room-commands

# hand.room-replies: the room service only (gateways read by manual assignment, no group).
acl "$ROOM" Write --topic hand.room-replies
acl "$ROOM" Read --topic hand.room-replies

# hand.room-events: PRIVATE (deal orders, seeds, every drawn card). The room service
# writes (outbox relay) and reads (Watch fan-out); the ledger reads (group hand-ledger).
acl "$ROOM" Write --topic hand.room-events
acl "$ROOM" Read --topic hand.room-events
acl "$LEDGER" Read --topic hand.room-events
acl "$LEDGER" Describe --topic hand.room-events
acl "$LEDGER" Read --group hand-ledger

# hand.room-events-public: spectator-safe events. The room service writes; any
# authenticated principal reads (User:* matches authenticated principals only when
# the listener has no PLAINTEXT/anonymous access — see the broker settings above).
acl "$ROOM" Write --topic hand.room-events-public
acl 'User:*' Read --topic hand.room-events-public
acl 'User:*' Describe --topic hand.room-events-public

# hand.bot-requests: the room service writes, bots read (group hand-bots).
acl "$ROOM" Write --topic hand.bot-requests
acl "$BOT" Read --topic hand.bot-requests
acl "$BOT" Describe --topic hand.bot-requests
acl "$BOT" Read --group hand-bots

"$KAFKA_ACLS" --bootstrap-server "$BOOTSTRAP" --command-config "$ADMIN_CONFIG" --list
