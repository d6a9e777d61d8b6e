package dev.tributary.config;

import dev.tributary.common.Scheduler;
import dev.tributary.common.Time;
import dev.tributary.kafka.KafkaListener;
import dev.tributary.kafka.security.ListenerSecurity;
import dev.tributary.server.AccessControl;
import dev.tributary.server.AdminService;
import dev.tributary.server.AutoTopicCreator;
import dev.tributary.server.BrokerConfig;
import dev.tributary.server.BrokerServer;
import dev.tributary.server.ClientConnections;
import dev.tributary.server.FetchService;
import dev.tributary.server.GroupServices;
import dev.tributary.server.LogDirsService;
import dev.tributary.server.OffsetsService;
import dev.tributary.server.ProduceService;
import dev.tributary.server.ProducerIdService;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Builds the Kafka wire-protocol listener over the broker's services ({@code tributary.kafka}). */
@Configuration(proxyBeanMethods = false)
class KafkaWiring {

  @Bean(destroyMethod = "close")
  KafkaPort kafkaPort(TributaryProperties properties, ListenerAddresses addresses) {
    return KafkaPort.bind(properties, addresses.kafkaBindHost());
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnProperty(
      name = "tributary.kafka.enabled",
      havingValue = "true",
      matchIfMissing = true)
  KafkaListener kafkaListener(
      KafkaPort port,
      TributaryProperties properties,
      BrokerServer broker,
      BrokerConfig config,
      AccessControl access,
      ProduceService produce,
      FetchService fetch,
      OffsetsService offsets,
      AutoTopicCreator autoTopics,
      ProducerIdService producerIds,
      GroupServices groups,
      Scheduler tributaryScheduler,
      AdminService admin,
      LogDirsService logDirs,
      ListenerSecurity kafkaListenerSecurity,
      Time brokerTime) {
    TributaryProperties.Kafka kafka = properties.kafka();
    try {
      return new KafkaListener(
          new KafkaListener.Settings(
              port.channel().orElseThrow(),
              kafka.networkThreads(),
              kafka.handlerThreads(),
              kafka.socketRequestMaxBytes(),
              kafka.connectionsMaxIdleMs()),
          new KafkaListener.Services(
              broker,
              config,
              access,
              produce,
              fetch,
              offsets,
              autoTopics,
              producerIds,
              groups,
              tributaryScheduler,
              admin,
              logDirs,
              brokerTime),
          kafkaListenerSecurity);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The Kafka listener's connections for the dashboard; none when the listener is off. */
  @Bean
  ClientConnections clientConnections(ObjectProvider<KafkaListener> kafkaListener) {
    KafkaListener listener = kafkaListener.getIfAvailable();
    return listener == null ? ClientConnections.NONE : listener.clientConnections();
  }
}
